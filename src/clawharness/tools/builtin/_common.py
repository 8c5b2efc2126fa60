"""Small helpers the host tools share: argument reading and result building."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from clawharness.errors import ToolError

__all__ = ["ToolInputError", "optional_int", "require_str", "text_result"]


class ToolInputError(ToolError):
    """A tool was called with missing or malformed arguments."""

    code = "tool_input"


def text_result(text: str, *, is_error: bool = False, **details: Any) -> dict[str, Any]:
    """A tool result `{"content": [{"type": "text", "text"}], "details": {...}}`."""
    result: dict[str, Any] = {"content": [{"type": "text", "text": text}], "details": details}
    if is_error:
        result["isError"] = True
    return result


def require_str(args: Mapping[str, Any], key: str, *, allow_empty: bool = False) -> str:
    """`args[key]` as a string, or a `ToolInputError` saying what is wrong."""
    value = args.get(key)
    if not isinstance(value, str):
        kind = "missing" if value is None else f"a {type(value).__name__}, not a string"
        raise ToolInputError(f"argument {key!r} is {kind}")
    if not allow_empty and not value:
        raise ToolInputError(f"argument {key!r} must not be empty")
    return value


def optional_int(
    args: Mapping[str, Any], key: str, *, minimum: int = 0, default: int | None = None
) -> int | None:
    """`args[key]` as an int >= `minimum` (floats with no fraction accepted), else default."""
    value = args.get(key)
    if value is None:
        return default
    if (isinstance(value, bool) or not isinstance(value, int | float)
            or (isinstance(value, float) and not math.isfinite(value)) or value != int(value)):
        raise ToolInputError(f"argument {key!r} must be an integer")
    if value < minimum:
        raise ToolInputError(f"argument {key!r} must be >= {minimum}")
    return int(value)
