"""The JSON value types: what arrives where the wire content is genuinely arbitrary.

Tool arguments, tool result content, transcript messages and the opaque details a
harness attaches are JSON. Code that reads them checks types explicitly
(`isinstance(value, str) and value.strip()`) instead of assuming a shape.
"""

from __future__ import annotations

from typing import TypeAlias

__all__ = ["JsonObject", "JsonValue"]

#: any JSON value (a decoded document, or a part of one)
#: (a real alias, not a string, so `typing.get_type_hints` resolves annotations that use it)
JsonValue: TypeAlias = dict[str, "JsonValue"] | list["JsonValue"] | str | int | float | bool | None
#: a JSON object
JsonObject: TypeAlias = dict[str, JsonValue]
