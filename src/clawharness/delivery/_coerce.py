"""JavaScript-semantics coercion helpers for loosely typed delivery payloads.

Tool results reach the delivery code as JSON-like values produced by plugins. The
original reads them with JavaScript rules (truthiness, `typeof`, `String.prototype.trim`),
so these helpers reproduce those rules instead of Python's, which differ at the edges
(for example `[]` is truthy in JavaScript and `str.strip` trims a different character set).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable, Mapping
from typing import Any, TypeGuard

from clawharness._jsvalue import UNDEFINED, JsError, JsMap, JsSet, is_nullish

__all__ = [
    "as_record",
    "has_non_empty_string",
    "is_array",
    "is_finite_number",
    "is_number",
    "js_trim",
    "js_truthy",
    "non_negative_finite_number",
    "normalize_optional_lowercase",
    "normalize_optional_string",
    "normalize_status",
    "opt_prop",
    "prop",
    "read_string",
    "read_trimmed_string_alias",
    "safe_parse_json_record",
]

# ECMAScript WhiteSpace and LineTerminator code points, which `trim()` removes.
_JS_WHITESPACE = (
    "\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008"
    "\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
)
_JSON_OBJECT_START = re.compile(r"^[\t\n\r ]*\{")
_MAX_SAFE_INTEGER = 2**53 - 1


def js_trim(value: str) -> str:
    """`String.prototype.trim`: strip JavaScript whitespace from both ends."""
    return value.strip(_JS_WHITESPACE)


def is_number(value: Any) -> bool:
    """`typeof value === "number"` (Python booleans are not numbers here)."""
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def is_finite_number(value: Any) -> bool:
    """`Number.isFinite(value)`."""
    return is_number(value) and math.isfinite(value)


def is_array(value: Any) -> TypeGuard[list[Any] | tuple[Any, ...]]:
    """`Array.isArray(value)`; a `Set` is not an array."""
    return isinstance(value, (list, tuple)) and not isinstance(value, JsSet)


def js_truthy(value: Any) -> bool:
    """JavaScript truthiness: empty containers are truthy, `NaN` and `""` are not."""
    if is_nullish(value):
        return False
    if isinstance(value, bool):
        return value
    if isinstance(value, (int, float)):
        return value != 0 and not math.isnan(value)
    if isinstance(value, str):
        return value != ""
    return True


def as_record(value: Any) -> dict[str, Any] | None:
    """`asOptionalRecord`: a plain (non-array, non-Map) object, else None."""
    if isinstance(value, dict) and not isinstance(value, JsMap):
        return value
    return None


def prop(owner: Any, key: str) -> Any:
    """`owner[key]` with JavaScript semantics; reading from null/undefined throws."""
    if isinstance(owner, dict) and not isinstance(owner, JsMap):
        return owner.get(key, UNDEFINED)
    if is_nullish(owner):
        kind = "null" if owner is None else "undefined"
        raise JsError("TypeError", f"Cannot read properties of {kind} (reading '{key}')")
    return UNDEFINED


def opt_prop(owner: Any, key: str) -> Any:
    """`owner?.[key]`: undefined when the owner is null or undefined."""
    if is_nullish(owner):
        return UNDEFINED
    return prop(owner, key)


def read_string(value: Any) -> str | None:
    """`readStringValue`: the value when it is a string, whitespace preserved."""
    return value if isinstance(value, str) else None


def normalize_optional_string(value: Any) -> str | None:
    """`normalizeOptionalString`: trimmed non-empty string, else None."""
    if not isinstance(value, str):
        return None
    trimmed = js_trim(value)
    return trimmed or None


def normalize_optional_lowercase(value: Any) -> str | None:
    """`normalizeOptionalLowercaseString`."""
    normalized = normalize_optional_string(value)
    return normalized.lower() if normalized is not None else None


def normalize_status(value: Any) -> str | None:
    """`normalizeMessageDeliveryStatus`: trimmed, lowercased; `""` stays `""`."""
    return js_trim(value).lower() if isinstance(value, str) else None


def has_non_empty_string(value: Any) -> bool:
    """True for strings that stay non-empty after trimming."""
    return normalize_optional_string(value) is not None


def read_trimmed_string_alias(record: Mapping[str, Any], keys: Iterable[str]) -> str | None:
    """The first key whose value is a non-empty trimmed string."""
    for key in keys:
        value = normalize_optional_string(record.get(key))
        if value is not None:
            return value
    return None


def non_negative_finite_number(value: Any) -> float | int | None:
    """`asNonNegativeFiniteNumber`: finite numbers that are not below zero."""
    if not is_finite_number(value):
        return None
    number: float | int = value
    return None if number < 0 else number


def _parse_int(text: str) -> int | float:
    # JavaScript numbers are doubles: large integers lose precision, "-0" is negative zero.
    number = int(text)
    if text.startswith("-") and number == 0:
        return -0.0
    return number if abs(number) <= _MAX_SAFE_INTEGER else float(text)


def _reject_constant(name: str) -> Any:
    raise ValueError(f"JSON.parse does not accept {name}")


def safe_parse_json_record(value: str) -> dict[str, Any] | None:
    """`safeParseJsonRecord`: parse text that opens with `{` into an object, else None."""
    if not _JSON_OBJECT_START.match(value):
        return None
    try:
        parsed = json.loads(value, parse_int=_parse_int, parse_constant=_reject_constant)
    except (ValueError, RecursionError):
        return None
    return as_record(parsed)
