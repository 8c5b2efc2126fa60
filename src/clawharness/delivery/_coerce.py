"""Readers for the loosely typed JSON that plugins hand to delivery.

Tool results, receipts and message-action arguments are arbitrary JSON. These helpers
read them with explicit rules. Two rules differ from Python's defaults on purpose, so
that a receipt means what the plugin that wrote it meant:

- whitespace is the set in `WHITESPACE` (`str.strip()` would also strip U+001C-U+001F
  and U+0085, and would keep U+FEFF);
- booleans are not numbers (`True` is an `int` to Python).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable, Mapping
from typing import TypeGuard

from clawharness._json import JsonObject, JsonValue

__all__ = [
    "WHITESPACE",
    "WHITESPACE_CLASS",
    "as_list",
    "as_record",
    "field_of",
    "has_non_empty_string",
    "is_finite_number",
    "is_number",
    "non_negative_finite_number",
    "normalize_optional_lowercase",
    "normalize_optional_string",
    "normalize_status",
    "read_string",
    "read_trimmed_string_alias",
    "safe_parse_json_record",
    "strip_whitespace",
]

#: the characters trimmed from both ends of a text: tab, line feed, vertical tab, form
#: feed, carriage return, the Unicode space separators, U+2028, U+2029 and U+FEFF
WHITESPACE = (
    "\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008"
    "\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
)
#: a regex character class matching exactly one character of `WHITESPACE`
WHITESPACE_CLASS = (
    "[\\t\\n\\x0b\\x0c\\r \\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff]"
)

_JSON_OBJECT_START = re.compile(r"^[\t\n\r ]*\{")
#: integers beyond this lose precision as the IEEE doubles plugins write them as
_MAX_SAFE_INTEGER = 2**53 - 1


def strip_whitespace(text: str) -> str:
    """`text` without leading and trailing `WHITESPACE`."""
    return text.strip(WHITESPACE)


def is_number(value: object) -> TypeGuard[int | float]:
    """True for an int or float; booleans are not numbers here."""
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def is_finite_number(value: object) -> TypeGuard[int | float]:
    """True for a number that is neither infinite nor NaN."""
    return is_number(value) and math.isfinite(value)


def as_record(value: object) -> JsonObject | None:
    """The value when it is a JSON object, else None."""
    return value if isinstance(value, dict) else None


def as_list(value: object) -> list[JsonValue] | None:
    """The value when it is a JSON array, else None."""
    return value if isinstance(value, list) else None


def field_of(value: JsonValue, key: str) -> JsonValue:
    """`value[key]` when the value is an object holding the key, else None."""
    record = as_record(value)
    return record.get(key) if record is not None else None


def read_string(value: object) -> str | None:
    """The value when it is a string, whitespace preserved."""
    return value if isinstance(value, str) else None


def normalize_optional_string(value: object) -> str | None:
    """The trimmed string when the value is a string with something besides whitespace."""
    if not isinstance(value, str):
        return None
    trimmed = strip_whitespace(value)
    return trimmed or None


def normalize_optional_lowercase(value: object) -> str | None:
    """`normalize_optional_string`, lowercased."""
    normalized = normalize_optional_string(value)
    return normalized.lower() if normalized is not None else None


def normalize_status(value: object) -> str | None:
    """A status word trimmed and lowercased; a blank string stays `""` (it is still a string)."""
    return strip_whitespace(value).lower() if isinstance(value, str) else None


def has_non_empty_string(value: object) -> bool:
    """True for a string that stays non-empty after trimming."""
    return normalize_optional_string(value) is not None


def read_trimmed_string_alias(record: Mapping[str, JsonValue], keys: Iterable[str]) -> str | None:
    """The first of `keys` whose value is a non-blank string, trimmed."""
    for key in keys:
        value = normalize_optional_string(record.get(key))
        if value is not None:
            return value
    return None


def non_negative_finite_number(value: object) -> int | float | None:
    """The value when it is a finite number not below zero."""
    if not is_finite_number(value):
        return None
    return None if value < 0 else value


def _parse_int(text: str) -> int | float:
    # Plugins write numbers as IEEE doubles: beyond 2**53 an integer is a float (so a
    # 400-digit "id" is infinite, not a huge finite number), and "-0" is negative zero.
    number = int(text)
    if text.startswith("-") and number == 0:
        return -0.0
    return number if abs(number) <= _MAX_SAFE_INTEGER else float(text)


def _reject_constant(name: str) -> float:
    # Python's json accepts NaN and Infinity; strict JSON (and the plugins' parser) does not.
    raise ValueError(f"JSON does not allow {name}")


def safe_parse_json_record(text: str) -> JsonObject | None:
    """The object a JSON text holds, when the text opens with `{` and parses; else None."""
    if not _JSON_OBJECT_START.match(text):
        return None
    try:
        parsed = json.loads(text, parse_int=_parse_int, parse_constant=_reject_constant)
    except (ValueError, RecursionError):
        return None
    return as_record(parsed)
