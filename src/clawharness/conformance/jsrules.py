"""JavaScript value rules the conformance adapters need, and nothing in the core uses.

The vectors hand the original's functions JavaScript values: `undefined` beside `null`,
`Map`/`Set`/`Error` objects, any type in any position. The core takes typed Python and
JSON instead, so the adapters decide here, once, what those values mean to it:

- `to_json` turns a decoded argument into the JSON the core reads: an object member
  whose value is `undefined` is dropped (as `JSON.stringify` drops it), `undefined` in
  an array becomes `None`, and an object JSON cannot express (a `Map`, a `Set`, an
  `Error`) becomes an `OpaqueJsValue`: not a dict, list, string, number, bool or `None`,
  so every explicit check in the core treats it as "some other value", which is what
  the original's `typeof`/`Array.isArray` checks see;
- `js_get` is a property read that throws the original's `TypeError` on `null` and
  `undefined`; `js_truthy` is JavaScript truthiness.
"""

from __future__ import annotations

import math
from typing import Any

from clawharness._json import JsonValue
from clawharness._jsvalue import UNDEFINED, JsError, JsMap, JsSet, is_nullish

__all__ = [
    "OpaqueJsValue",
    "is_plain_object",
    "js_get",
    "js_optional_get",
    "js_truthy",
    "to_json",
]


class OpaqueJsValue:
    """A JavaScript object with no JSON form, carried through the core untouched.

    The conformance encoder turns it back into the original value (`to_js`), so a
    result that passes it through (channel data, for one) encodes as it came in.
    """

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value

    def to_js(self) -> Any:
        return self.value

    def __repr__(self) -> str:
        return f"OpaqueJsValue({self.value!r})"


def is_plain_object(value: Any) -> bool:
    """True for a JavaScript object literal (not an array, `Map` or primitive)."""
    return isinstance(value, dict) and not isinstance(value, JsMap)


def to_json(value: Any) -> JsonValue:
    """The core's JSON view of a decoded JavaScript value (see the module notes).

    Shared objects stay shared and cycles stay cycles, so a receipt that holds the same
    object twice, or itself, reaches the core with that shape.
    """
    converted: JsonValue = _to_json(value, {})
    return converted


def _to_json(value: Any, seen: dict[int, Any]) -> Any:
    if value is UNDEFINED:
        return None
    if value is None or isinstance(value, (bool, str, int, float)):
        return value
    if id(value) in seen:
        return seen[id(value)]
    if isinstance(value, (JsMap, JsSet)) or not isinstance(value, (dict, list, tuple)):
        opaque = OpaqueJsValue(value)
        seen[id(value)] = opaque
        return opaque
    if isinstance(value, dict):
        record: dict[str, Any] = {}
        seen[id(value)] = record
        for key, item in value.items():
            if item is not UNDEFINED:
                record[key] = _to_json(item, seen)
        return record
    items: list[Any] = []
    seen[id(value)] = items
    items.extend(_to_json(item, seen) for item in value)
    return items


def js_truthy(value: Any) -> bool:
    """JavaScript truthiness: `[]` and `{}` are truthy; `0`, `NaN`, `""` are not."""
    if is_nullish(value) or value is False:
        return False
    if value is True:
        return True
    if isinstance(value, (int, float)):
        return value != 0 and not math.isnan(value)
    if isinstance(value, str):
        return value != ""
    return True


def js_get(owner: Any, key: str) -> Any:
    """`owner[key]`: `undefined` when missing; reading from `null`/`undefined` throws."""
    if is_nullish(owner):
        kind = "null" if owner is None else "undefined"
        raise JsError("TypeError", f"Cannot read properties of {kind} (reading '{key}')")
    return owner.get(key, UNDEFINED) if is_plain_object(owner) else UNDEFINED


def js_optional_get(owner: Any, key: str) -> Any:
    """`owner?.[key]`: `undefined` when the owner is `null` or `undefined`."""
    return UNDEFINED if is_nullish(owner) else js_get(owner, key)
