"""The type of a JSON value, for the places where the core reads genuinely arbitrary JSON.

Tool arguments, tool results and plugin receipts are whatever a plugin produced; the core
reads them with explicit checks (`isinstance(value, str) and value.strip()`) rather than
modelling them. Everywhere else values are typed (dataclasses, pydantic models).
"""

from __future__ import annotations

from typing import TypeAlias

__all__ = ["JsonObject", "JsonValue"]

JsonValue: TypeAlias = "dict[str, JsonValue] | list[JsonValue] | str | int | float | bool | None"
JsonObject: TypeAlias = "dict[str, JsonValue]"
