"""JavaScript value shapes that the wire contracts need and plain JSON cannot say.

The helper contracts (tool results, delivery facts, attempt results) travel as
JSON-like mappings with camelCase keys, exactly as the original's plugins produce
them. Two JavaScript distinctions matter there: a key that is present with the value
`undefined` differs from an absent key, and `Map`/`Set` keep insertion order. These
small types carry those distinctions through Python.
"""

from __future__ import annotations

from typing import Any, Final

__all__ = ["UNDEFINED", "JsError", "JsMap", "JsSet", "Undefined", "is_nullish", "is_plain_object"]


class Undefined:
    """JavaScript's `undefined`: falsy, a singleton, distinct from None (`null`)."""

    _instance: Undefined | None = None

    def __new__(cls) -> Undefined:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __bool__(self) -> bool:
        return False

    def __repr__(self) -> str:
        return "UNDEFINED"

    def __reduce__(self) -> str:
        return "UNDEFINED"


UNDEFINED: Final = Undefined()


class JsMap(dict[Any, Any]):
    """An insertion-ordered JavaScript `Map`."""

    def __repr__(self) -> str:
        return f"JsMap({dict.__repr__(self)})"


class JsSet(list[Any]):
    """An insertion-ordered JavaScript `Set` (kept as a list of unique members)."""

    def __init__(self, items: Any = ()) -> None:
        super().__init__()
        for item in items:
            if item not in self:
                self.append(item)

    def add(self, item: Any) -> None:
        if item not in self:
            self.append(item)


def is_nullish(value: Any) -> bool:
    """True for `null` and `undefined`."""
    return value is None or value is UNDEFINED


def is_plain_object(value: Any) -> bool:
    """True for a JSON object (not an array, map or primitive)."""
    return isinstance(value, dict) and not isinstance(value, JsMap)


class JsError(Exception):
    """An error whose JavaScript `name` matters to callers (as in `err.name`).

    `props` holds the error's other own fields, as the original attaches them.
    """

    def __init__(self, name: str, message: str, props: dict[str, Any] | None = None):
        super().__init__(message)
        self.js_name = name
        self.name = name
        self.message = message
        self.props = props if props is not None else {}
