"""JavaScript string and regex semantics the tool helpers must reproduce exactly.

The original measures strings in UTF-16 code units, trims with JavaScript's whitespace
set and runs ECMAScript regexes. Python differs on all three (code points, `str.isspace`,
Unicode-aware `\\s`/`\\d`/`\\b`, `$` before a final newline), so the tool helpers route
those operations through this module.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Callable, Iterator
from functools import cache
from typing import Any

from clawharness._jsvalue import UNDEFINED, JsMap, JsSet

__all__ = [
    "JS_WS",
    "JS_WS_CHARS",
    "as_object",
    "is_js_number",
    "is_js_object",
    "is_record",
    "js_get",
    "js_len",
    "js_number_to_string",
    "js_regex",
    "js_split_first_line",
    "js_trim",
    "js_trim_end",
    "js_trim_start",
    "js_truthy",
    "lower_or_empty",
    "normalize_optional_lower",
    "normalize_optional_string",
    "replace_all",
    "slice_utf16_safe",
    "truncate_utf16_safe",
    "utf16_index_to_py",
]

#: ECMAScript WhiteSpace + LineTerminator, as `String.prototype.trim` and `\s` use them
JS_WS = "\t\n\v\f\r \u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
JS_WS_CHARS = frozenset(
    "\t\n\v\f\r \u00a0\u1680\u2028\u2029\u202f\u205f\u3000\ufeff"
    + "".join(chr(c) for c in range(0x2000, 0x200B))
)


def js_trim(value: str) -> str:
    """`String.prototype.trim`."""
    return js_trim_end(js_trim_start(value))


def js_trim_start(value: str) -> str:
    """`String.prototype.trimStart`."""
    index = 0
    while index < len(value) and value[index] in JS_WS_CHARS:
        index += 1
    return value[index:]


def js_trim_end(value: str) -> str:
    """`String.prototype.trimEnd`."""
    end = len(value)
    while end > 0 and value[end - 1] in JS_WS_CHARS:
        end -= 1
    return value[:end]


def js_split_first_line(value: str) -> str:
    """`value.split(/\\r?\\n/, 1)[0]`."""
    index = value.find("\n")
    if index < 0:
        return value
    head = value[:index]
    return head[:-1] if head.endswith("\r") else head


def is_js_number(value: Any) -> bool:
    """`typeof value === "number"` (bools are not numbers)."""
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def is_js_object(value: Any) -> bool:
    """`value && typeof value === "object"`: dicts, arrays, maps, sets and errors."""
    if value is None or value is UNDEFINED:
        return False
    if isinstance(value, (dict, list, tuple, JsMap, JsSet, BaseException)):
        return True
    return hasattr(value, "__dict__") and not callable(value)


def is_record(value: Any) -> bool:
    """A non-array object (the original's `isRecord`)."""
    return is_js_object(value) and not isinstance(value, (list, tuple))


def as_object(value: Any) -> Any:
    """`asOptionalObjectRecord`: the value when it is an object, else None."""
    return value if is_js_object(value) else None


def js_get(value: Any, key: str) -> Any:
    """Property read `value[key]` on a JS-shaped value; UNDEFINED when absent."""
    if isinstance(value, JsMap):
        return UNDEFINED
    if isinstance(value, dict):
        return value.get(key, UNDEFINED)
    if isinstance(value, (list, tuple, str)):
        if key == "length":
            return len(value)
        if key.isdigit() and (key == "0" or not key.startswith("0")):
            index = int(key)
            return value[index] if index < len(value) else UNDEFINED
        return UNDEFINED
    if isinstance(value, BaseException):
        if key in ("name", "message"):
            return getattr(value, key, UNDEFINED)
        props = getattr(value, "props", None)
        if isinstance(props, dict):
            return props.get(key, UNDEFINED)
        return UNDEFINED
    if value is None or value is UNDEFINED:
        return UNDEFINED
    return getattr(value, key, UNDEFINED)


def js_truthy(value: Any) -> bool:
    """JavaScript truthiness (objects and arrays are truthy even when empty)."""
    if value is None or value is UNDEFINED or value is False:
        return False
    if isinstance(value, str):
        return value != ""
    if is_js_number(value):
        return not (value == 0 or (isinstance(value, float) and math.isnan(value)))
    return True


def normalize_optional_string(value: Any) -> str | None:
    """Trimmed string, or None for non-strings and blanks."""
    if not isinstance(value, str):
        return None
    trimmed = js_trim(value)
    return trimmed or None


def normalize_optional_lower(value: Any) -> str | None:
    """`normalizeOptionalLowercaseString`."""
    normalized = normalize_optional_string(value)
    return normalized.lower() if normalized is not None else None


def lower_or_empty(value: Any) -> str:
    """`normalizeLowercaseStringOrEmpty`."""
    return normalize_optional_lower(value) or ""


# -- UTF-16 code-unit arithmetic ------------------------------------------------------


def js_len(value: str) -> int:
    """`value.length` in UTF-16 code units."""
    return len(value) + sum(1 for ch in value if ord(ch) > 0xFFFF)


def utf16_index_to_py(value: str, index: int) -> int:
    """Python index of the code point that starts at UTF-16 offset `index` (clamped)."""
    if index <= 0:
        return 0
    units = 0
    for position, ch in enumerate(value):
        if units >= index:
            return position
        units += 2 if ord(ch) > 0xFFFF else 1
    return len(value)


def slice_utf16_safe(value: str, start: int, end: int | None = None) -> str:
    """`sliceUtf16Safe`: UTF-16 slice that never returns half a surrogate pair."""
    length = js_len(value)
    begin = max(length + start, 0) if start < 0 else min(start, length)
    if end is None:
        stop = length
    else:
        stop = max(length + end, 0) if end < 0 else min(end, length)
    if stop <= begin:
        return ""
    # An astral code point spans two units; a boundary inside one moves past it (start)
    # or before it (end), exactly as the original's surrogate checks do.
    units = 0
    py_begin: int | None = None
    py_end: int | None = None
    for position, ch in enumerate(value):
        width = 2 if ord(ch) > 0xFFFF else 1
        if py_begin is None and units + width > begin:
            py_begin = position if units == begin else position + 1
        if py_end is None and units + width > stop:
            py_end = position
        units += width
    if py_begin is None:
        py_begin = len(value)
    if py_end is None:
        py_end = len(value)
    return value[py_begin:py_end] if py_end > py_begin else ""


def truncate_utf16_safe(value: str, max_len: float) -> str:
    """`truncateUtf16Safe`."""
    limit = max(0, math.floor(max_len))
    if js_len(value) <= limit:
        return value
    return slice_utf16_safe(value, 0, limit)


def replace_all(value: str, old: str, new: str) -> str:
    """`String.prototype.replaceAll` with a plain string."""
    return value.replace(old, new)


# -- numbers --------------------------------------------------------------------------


def js_number_to_string(value: float) -> str:
    """`String(number)`: JavaScript's shortest round-trip formatting."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        if abs(value) < 10**21:
            return str(value)
        value = float(value)
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    if value == 0:
        return "0"
    sign = "-" if value < 0 else ""
    digits, exponent = _shortest_digits(abs(value))
    # `exponent` is the decimal point position n of ECMAScript's Number::toString.
    k = len(digits)
    n = exponent
    if k <= n <= 21:
        return sign + digits + "0" * (n - k)
    if 0 < n <= 21:
        return sign + digits[:n] + "." + digits[n:]
    if -6 < n <= 0:
        return sign + "0." + "0" * (-n) + digits
    e = n - 1
    mantissa = digits[0] + ("." + digits[1:] if k > 1 else "")
    return f"{sign}{mantissa}e{'+' if e >= 0 else '-'}{abs(e)}"


def _shortest_digits(value: float) -> tuple[str, int]:
    text = repr(value)
    mantissa, _, exp_text = text.partition("e")
    exp = int(exp_text) if exp_text else 0
    whole, _, frac = mantissa.partition(".")
    if frac == "0":
        frac = ""
    digits = (whole + frac).lstrip("0")
    leading_zeros = len(whole + frac) - len((whole + frac).lstrip("0"))
    point = len(whole) + exp - leading_zeros
    digits = digits.rstrip("0") or "0"
    return digits, point


# -- regexes --------------------------------------------------------------------------


@cache
def _category_c_class() -> str:
    """The members of Unicode category C (`\\p{C}`) as character-class ranges."""
    ranges: list[tuple[int, int]] = []
    start: int | None = None
    category = unicodedata.category
    for code in range(0x110000):
        is_other = category(chr(code))[0] == "C"
        if is_other and start is None:
            start = code
        elif not is_other and start is not None:
            ranges.append((start, code - 1))
            start = None
    if start is not None:
        ranges.append((start, 0x10FFFF))
    return "".join(_range_text(a, b) for a, b in ranges)


@cache
def _category_class(prefix: str) -> str:
    ranges: list[tuple[int, int]] = []
    start: int | None = None
    category = unicodedata.category
    for code in range(0x110000):
        member = category(chr(code)) == prefix or (
            len(prefix) == 1 and category(chr(code))[0] == prefix
        )
        if member and start is None:
            start = code
        elif not member and start is not None:
            ranges.append((start, code - 1))
            start = None
    if start is not None:
        ranges.append((start, 0x10FFFF))
    return "".join(_range_text(a, b) for a, b in ranges)


def _escape_class_char(code: int) -> str:
    return f"\\U{code:08x}"


def _range_text(a: int, b: int) -> str:
    if a == b:
        return _escape_class_char(a)
    return f"{_escape_class_char(a)}-{_escape_class_char(b)}"


def _property_class(name: str) -> str:
    if name == "C":
        return _category_c_class()
    return _category_class(name)


_END_MULTILINE = "(?=[\n\r\u2028\u2029]|\\Z)"
_START_MULTILINE = "(?:(?<=[\n\r\u2028\u2029])|\\A)"


def _translate(source: str, dot_all: bool, multiline: bool = False) -> str:
    """Rewrite an ECMAScript pattern into Python `re` syntax with the same meaning."""
    out: list[str] = []
    in_class = False
    i = 0
    n = len(source)
    while i < n:
        ch = source[i]
        if ch == "\\" and i + 1 < n:
            nxt = source[i + 1]
            if nxt in "pP" and i + 2 < n and source[i + 2] == "{":
                close = source.index("}", i + 3)
                body = _property_class(source[i + 3 : close])
                if in_class:
                    out.append(body)
                else:
                    out.append(f"[{'^' if nxt == 'P' else ''}{body}]")
                i = close + 1
                continue
            if nxt == "s":
                out.append(JS_WS if in_class else f"[{JS_WS}]")
            elif nxt == "S" and not in_class:
                out.append(f"[^{JS_WS}]")
            elif nxt == "/":
                out.append("/")
            else:
                out.append(ch + nxt)
            i += 2
            continue
        if in_class:
            if ch == "]":
                in_class = False
            elif ch == "[":
                out.append("\\[")
                i += 1
                continue
            out.append(ch)
            i += 1
            continue
        if ch == "[":
            in_class = True
            out.append(ch)
            # `[]` and `[^]` are legal ECMAScript (empty / any-char classes).
            if source.startswith("^]", i + 1):
                out[-1] = "[\\s\\S]"
                i += 3
                in_class = False
                continue
            if source.startswith("]", i + 1):
                out[-1] = "(?!)"
                i += 2
                in_class = False
                continue
            if source.startswith("^", i + 1):
                out.append("^")
                i += 2
                continue
            i += 1
            continue
        if ch == "$":
            out.append(_END_MULTILINE if multiline else r"\Z")
        elif ch == "^" and multiline:
            out.append(_START_MULTILINE)
        elif ch == "." and not dot_all:
            out.append("[^\n\r\u2028\u2029]")
        elif (
            ch == "(" and source.startswith("?<", i + 1) and source[i + 3 : i + 4] not in ("=", "!")
        ):
            out.append("(?P<")
            i += 3
            continue
        else:
            out.append(ch)
        i += 1
    return "".join(out)


@cache
def js_regex(source: str, flags: str = "") -> re.Pattern[str]:
    """Compile an ECMAScript regex source with ECMAScript semantics for \\s, \\d, \\b, . and $.

    Only the `i`, `s` and `u` flags change matching; `g` and `d` are for the caller.
    """
    py_flags = re.ASCII
    if "i" in flags:
        py_flags |= re.IGNORECASE
    translated = _translate(source, "s" in flags, "m" in flags)
    return re.compile(translated, py_flags)


def iter_matches(
    pattern: re.Pattern[str],
    text: str,
    accept: Callable[[re.Match[str]], bool] | None = None,
) -> Iterator[re.Match[str]]:
    """Global-flag iteration as `String.prototype.replace`/`matchAll` walk a string.

    `accept` emulates a lookbehind Python cannot express: a rejected match makes the
    search resume one position later, as the ECMAScript engine would.
    """
    position = 0
    length = len(text)
    while position <= length:
        match = pattern.search(text, position)
        if match is None:
            return
        if accept is not None and not accept(match):
            position = match.start() + 1
            continue
        yield match
        position = match.end() if match.end() > match.start() else match.end() + 1


def sub_matches(
    pattern: re.Pattern[str],
    text: str,
    replace: Callable[[re.Match[str]], str],
    accept: Callable[[re.Match[str]], bool] | None = None,
) -> str:
    """`text.replace(globalRegex, fn)` with ECMAScript's empty-match advance."""
    parts: list[str] = []
    cursor = 0
    for match in iter_matches(pattern, text, accept):
        parts.append(text[cursor : match.start()])
        parts.append(replace(match))
        cursor = match.end()
    if not parts:
        return text
    parts.append(text[cursor:])
    return "".join(parts)
