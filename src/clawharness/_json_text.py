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
"""

from __future__ import annotations

import json
from typing import Any, Final

import orjson

__all__ = ["dumps_strict"]

_STRICT: Final = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False)
_OPTIONS: Final = orjson.OPT_PASSTHROUGH_DATACLASS | orjson.OPT_PASSTHROUGH_DATETIME
_dumps: Final = orjson.dumps
_loads: Final = orjson.loads


def dumps_strict(value: Any) -> str:
    """Compact JSON of `value`, non-ASCII as is, NaN refused (see the module docstring)."""
    try:
        raw = _dumps(value, option=_OPTIONS)
        # (a comparison may raise for an odd type's `__eq__`: `json` decides then)
        if _loads(raw) == value:
            return raw.decode()
    except Exception:  # whatever orjson refuses, `json` answers below
        pass
    return _STRICT.encode(value)
