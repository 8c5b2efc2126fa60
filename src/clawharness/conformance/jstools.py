"""JavaScript semantics for the tool-helper vectors: property reads, truthiness, trim,
and an ECMAScript-to-Python regex translator.

The conformance adapters (`fns_tools`) read the vectors' JavaScript-shaped arguments
with these. The core does not: it works on JSON with Python rules (`clawharness._text`,
`clawharness._utf16`, patterns written in Python). Until they are converted, the core
modules listed in `clawharness.tools._js` still reach a few of these through that
module; nothing else in the core may import this one.
"""

from __future__ import annotations

import math
import re
import unicodedata
from functools import cache
from typing import Any

from clawharness._jsvalue import UNDEFINED, JsMap, JsSet

__all__ = [
    "JS_WS",
    "JS_WS_CHARS",
    "is_js_number",
    "is_js_object",
    "js_get",
    "js_regex",
    "js_trim",
    "js_trim_end",
    "js_trim_start",
    "js_truthy",
    "lower_or_empty",
    "normalize_optional_string",
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


def lower_or_empty(value: Any) -> str:
    """`normalizeLowercaseStringOrEmpty`."""
    normalized = normalize_optional_string(value)
    return normalized.lower() if normalized is not None else ""


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
