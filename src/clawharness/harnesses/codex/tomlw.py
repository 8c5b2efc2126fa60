"""A small TOML writer for Codex's `config.toml` (tomli_w is not a dependency).

Writes tables, arrays of tables, strings, booleans, integers, finite floats and arrays of
those; dates are not needed. `merge` deep-merges an override table into a base one.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["dumps", "merge"]

_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")
_ESCAPES = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\t": "\\t", "\n": "\\n", "\f": "\\f",
            "\r": "\\r"}


def _string(value: str) -> str:
    out = []
    for char in value:
        if char in _ESCAPES:
            out.append(_ESCAPES[char])
        elif ord(char) < 0x20 or ord(char) == 0x7F:
            out.append(f"\\u{ord(char):04x}")
        else:
            out.append(char)
    return '"' + "".join(out) + '"'


def _key(key: str) -> str:
    if not isinstance(key, str):
        raise TypeError(f"TOML keys must be strings, got {type(key).__name__}")
    return key if _BARE_KEY.fullmatch(key) else _string(key)  # not match(): "$" admits "\n"


def _is_table(value: Any) -> bool:
    return isinstance(value, Mapping)


def _is_table_array(value: Any) -> bool:
    return (isinstance(value, Sequence) and not isinstance(value, str | bytes) and bool(value)
            and all(_is_table(v) for v in value))


def _value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            return "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")
        return repr(value)
    if isinstance(value, str):
        return _string(value)
    if isinstance(value, Mapping):
        inner = ", ".join(f"{_key(k)} = {_value(v)}" for k, v in value.items() if v is not None)
        return "{ " + inner + " }" if inner else "{}"
    if isinstance(value, Sequence) and not isinstance(value, bytes):
        return "[" + ", ".join(_value(v) for v in value if v is not None) + "]"
    raise TypeError(f"cannot write {type(value).__name__} as TOML")


def _table(lines: list[str], path: tuple[str, ...], table: Mapping[str, Any]) -> None:
    scalars = [(k, v) for k, v in table.items()
               if v is not None and not _is_table(v) and not _is_table_array(v)]
    nested = [(k, v) for k, v in table.items() if _is_table(v)]
    arrays = [(k, v) for k, v in table.items() if _is_table_array(v)]
    if path and (scalars or not (nested or arrays)):
        lines.append(f"[{'.'.join(_key(p) for p in path)}]")
    for key, value in scalars:
        lines.append(f"{_key(key)} = {_value(value)}")
    if scalars or (path and not (nested or arrays)):
        lines.append("")
    for key, value in nested:
        _table(lines, (*path, key), value)
    for key, items in arrays:
        for item in items:
            lines.append(f"[[{'.'.join(_key(p) for p in (*path, key))}]]")
            for k, v in item.items():
                if v is not None:
                    lines.append(f"{_key(k)} = {_value(v)}")
            lines.append("")


def dumps(document: Mapping[str, Any]) -> str:
    """`document` as TOML text; None values are left out."""
    lines: list[str] = []
    _table(lines, (), document)
    return "\n".join(lines).rstrip("\n") + "\n"


def merge(base: Mapping[str, Any], override: Mapping[str, Any]) -> dict[str, Any]:
    """A deep merge: tables merge key by key, anything else in `override` wins."""
    out: dict[str, Any] = dict(base)
    for key, value in override.items():
        current = out.get(key)
        if isinstance(current, Mapping) and isinstance(value, Mapping):
            out[key] = merge(current, value)
        else:
            out[key] = value
    return out
