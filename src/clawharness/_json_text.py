"""JSON text for the hot writers (the store's JSON columns): `orjson` where it gives what
`json` would, `json` where it does not.

`dumps_strict(value)` is `json.JSONEncoder(ensure_ascii=False, separators=(",", ":"),
allow_nan=False).encode(value)`, about ten times faster on a turn's values: the same
errors (TypeError, ValueError) for what cannot be JSON, and text that reads back as an
equal value (the spelling of a number may differ: `1.5e-7`, not `1.5e-07`).

What orjson does not do as `json` does, and how it is kept:

- it refuses what `json` writes (integers beyond 64 bits, keys that are not `str`, float
  subclasses, strings with lone surrogates, nesting deeper than 255): `json` writes it;
- it writes what `json` refuses or writes differently (NaN and infinities as `null`,
  UUIDs, `Enum` members by value, tuples read back as lists): so orjson's text is kept
  only when it reads back equal to the value (C-speed, a fraction of `json`'s encoding
  of the value), and `json` answers otherwise (with its error, or its own text);
- dataclasses and datetimes: orjson is told to refuse them (`json` refuses them too).

A `PlainJson` (a dict its maker vouches is plain JSON: a turn record as stored) skips
the reading back: none of those differences can arise in it.

`dumps_sorted(value)` is the same for a text compared, not stored (keys sorted, UTF-8),
and `surely_within(value, chars)` tells, without `json`'s text, that it is short.
"""

from __future__ import annotations

import json
from typing import Any, Final

import orjson

__all__ = ["PlainJson", "dumps_sorted", "dumps_strict", "surely_within"]

_STRICT: Final = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False)
_OPTIONS: Final = orjson.OPT_PASSTHROUGH_DATACLASS | orjson.OPT_PASSTHROUGH_DATETIME
_SORTED_OPTIONS: Final = _OPTIONS | orjson.OPT_SORT_KEYS
_SORTED: Final = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), sort_keys=True,
                                  default=str)
_dumps: Final = orjson.dumps
_loads: Final = orjson.loads


class PlainJson(dict[str, Any]):
    """A JSON object whose maker vouches that it holds, at any depth, only dicts, lists,
    tuples, strings, ints, finite floats, bools and None (keys need not be vouched for:
    orjson refuses a key that is not a string). `dumps_strict` writes it without reading
    it back; it is a dict in every other way."""

    __slots__ = ()


def dumps_strict(value: Any) -> str:
    """Compact JSON of `value`, non-ASCII as is, NaN refused (see the module docstring)."""
    if type(value) is PlainJson:
        try:
            return _dumps(value, option=_OPTIONS).decode()
        except Exception:  # (a key not a string, an int beyond 64 bits): `json` answers
            return _STRICT.encode(value)
    try:
        raw = _dumps(value, option=_OPTIONS)
        # (a comparison may raise for an odd type's `__eq__`: `json` decides then)
        if _loads(raw) == value:
            return raw.decode()
    except Exception:  # whatever orjson refuses, `json` answers below
        pass
    return _STRICT.encode(value)


def dumps_sorted(value: Any) -> bytes:
    """`value` as compact JSON with sorted keys, in UTF-8 (lone surrogates passed), what
    is not JSON written as its `str()`: for a value compared, not stored. Two values give
    the same bytes when `json.dumps(..., sort_keys=True, default=str)` gives them the
    same text (short of a number `json` spells with an exponent's leading zero, `1e-07`,
    written by each side its own way: when one value is plain JSON and the other is not)."""
    try:
        raw = _dumps(value, option=_SORTED_OPTIONS)
        if _loads(raw) == value:
            return raw
    except Exception:  # `json` answers below
        pass
    return _SORTED.encode(value).encode("utf-8", "surrogatepass")


def surely_within(value: Any, chars: int) -> bool:
    """True when `value` is plain JSON whose text, as `json` writes it with any separators
    (`", "` and `": "` too) and non-ASCII as is, is at most `chars` long; False when that
    is not sure (then ask `json`). The compact UTF-8 text of `n` bytes has at most `n`
    characters, a space after at most `n / 2` separators, and at most `n / 4` numbers
    `json` spells one character longer (`1e-07`): under `2 n` in all."""
    try:
        raw = _dumps(value, option=_OPTIONS)
        return 2 * len(raw) <= chars and _loads(raw) == value
    except Exception:
        return False
