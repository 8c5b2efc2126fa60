"""JavaScript semantics the conformance adapters need to decode the recorded vectors.

The vectors carry the original's JavaScript values: camelCase objects, `undefined`,
values of the wrong type. Adapters turn them into the core's typed inputs with the
original's coercions (truthiness, `String(value)`, `trim`, `isDeepStrictEqual`), and
these helpers are those coercions. The core never imports this module.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any, TypeGuard

from clawharness._json import JsonValue
from clawharness.conformance.jsvalue import UNDEFINED, JsError, JsMap, JsSet

__all__ = [
    "JS_WS",
    "OpaqueJsValue",
    "get",
    "is_js_number",
    "is_js_object",
    "is_nullish",
    "is_plain_object",
    "is_record",
    "is_true",
    "js_get",
    "js_optional_get",
    "js_property",
    "js_string",
    "js_trim",
    "js_trim_start",
    "js_truthy",
    "non_empty_string",
    "strict_deep_equal",
    "string_or_none",
    "strings",
    "to_json",
    "to_json_keeping_opaque",
]

# ECMAScript WhiteSpace + LineTerminator, the set `trim()` and `\s` use.
_WS_CHARS = (
    "\t\n\x0b\x0c\r \xa0\u1680"
    + "".join(chr(c) for c in range(0x2000, 0x200B))
    + "\u2028\u2029\u202f\u205f\u3000\ufeff"
)
#: a regex character class equal to JavaScript's `\s`
JS_WS = (
    "[\\t\\n\\x0b\\x0c\\r \\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff]"
)


def js_trim(text: str) -> str:
    """`String.prototype.trim`."""
    return text.strip(_WS_CHARS)


def js_trim_start(text: str) -> str:
    """`String.prototype.trimStart`."""
    return text.lstrip(_WS_CHARS)


def js_string(value: Any) -> str:
    """`String(value)` for the primitives that appear in messages."""
    if value is UNDEFINED:
        return "undefined"
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        if math.isnan(value):
            return "NaN"
        if math.isinf(value):
            return "Infinity" if value > 0 else "-Infinity"
        if value.is_integer() and abs(value) < 1e21:
            return str(int(value))
        return repr(value)
    if isinstance(value, str):
        return value
    if isinstance(value, int):
        return str(value)
    if isinstance(value, list):
        return ",".join(
            "" if item is None or item is UNDEFINED else js_string(item) for item in value
        )
    return "[object Object]"


def is_nullish(value: Any) -> bool:
    """True for `null` and `undefined`."""
    return value is None or value is UNDEFINED


def is_js_number(value: Any) -> bool:
    """`typeof value === "number"` (booleans are not numbers in JavaScript)."""
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def js_truthy(value: Any) -> bool:
    """JavaScript truthiness: objects and arrays are truthy even when empty."""
    if value is None or value is UNDEFINED or value is False:
        return False
    if value is True:
        return True
    if is_js_number(value):
        return not (value == 0 or (isinstance(value, float) and math.isnan(value)))
    if isinstance(value, str):
        return len(value) > 0
    return True


def is_record(value: Any) -> TypeGuard[dict[str, Any]]:
    """A plain object (not an array, map, null or primitive)."""
    return isinstance(value, dict) and not isinstance(value, JsMap)


#: a JavaScript object literal (the delivery adapters' name for `is_record`)
is_plain_object = is_record


def get(owner: Any, key: str) -> Any:
    """`owner?.[key]`: `undefined` when the owner is not an object or lacks the key."""
    if isinstance(owner, Mapping):
        return owner.get(key, UNDEFINED)
    return UNDEFINED


def non_empty_string(value: Any) -> bool:
    """`typeof value === "string" && value.trim().length > 0`."""
    return isinstance(value, str) and len(js_trim(value)) > 0


def strict_deep_equal(left: Any, right: Any) -> bool:
    """`util.isDeepStrictEqual` for JSON-like values (booleans never equal numbers)."""
    if isinstance(left, bool) or isinstance(right, bool):
        return isinstance(left, bool) and isinstance(right, bool) and left is right
    if is_js_number(left) and is_js_number(right):
        if isinstance(left, float) and isinstance(right, float):
            if math.isnan(left) and math.isnan(right):
                return True
            if left == 0 and right == 0:
                return math.copysign(1.0, left) == math.copysign(1.0, right)
        return bool(left == right)
    if isinstance(left, list) and isinstance(right, list):
        return len(left) == len(right) and all(
            strict_deep_equal(a, b) for a, b in zip(left, right, strict=True)
        )
    if isinstance(left, dict) and isinstance(right, dict):
        if type(left) is not type(right) or set(left) != set(right):
            return False
        return all(strict_deep_equal(left[key], right[key]) for key in left)
    if type(left) is not type(right):
        return False
    return bool(left == right)


def to_json(value: Any, _memo: dict[int, Any] | None = None) -> Any:
    """A JavaScript value as the JSON the core reads, as `JSON.stringify` would see it:
    a key whose value is `undefined` is absent, other non-JSON values (`undefined` in an
    array, a Map, an Error, a function) become None, a Set its members as a list.

    Shared containers stay shared and a cycle stays a cycle (the vectors can build one).
    """
    memo = {} if _memo is None else _memo
    if value is UNDEFINED or isinstance(value, (JsMap, BaseException)):
        return None
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if id(value) in memo:
        return memo[id(value)]
    if isinstance(value, dict):
        out: dict[str, Any] = {}
        memo[id(value)] = out
        for key, item in value.items():
            if item is not UNDEFINED:
                out[str(key)] = to_json(item, memo)
        return out
    if isinstance(value, (list, tuple)):
        items: list[Any] = []
        memo[id(value)] = items
        items.extend(to_json(item, memo) for item in value)
        return items
    return None


def string_or_none(value: Any) -> str | None:
    """The value when it is a string, else None."""
    return value if isinstance(value, str) else None


def strings(value: Any) -> tuple[str, ...]:
    """The string members of an array (none for a non-array)."""
    return tuple(item for item in value if isinstance(item, str)) if isinstance(value, list) else ()


def is_true(value: Any) -> bool:
    """`value === true`."""
    return value is True


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


def to_json_keeping_opaque(value: Any) -> JsonValue:
    """The core's JSON view of a decoded JavaScript value, a `Map`, `Set` or `Error` kept
    as an `OpaqueJsValue` (delivery's receipts pass channel data through untouched).

    Shared objects stay shared and cycles stay cycles, so a receipt that holds the same
    object twice, or itself, reaches the core with that shape.
    """
    converted: JsonValue = _to_json_keeping_opaque(value, {})
    return converted


def _to_json_keeping_opaque(value: Any, seen: dict[int, Any]) -> Any:
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
                record[key] = _to_json_keeping_opaque(item, seen)
        return record
    items: list[Any] = []
    seen[id(value)] = items
    items.extend(_to_json_keeping_opaque(item, seen) for item in value)
    return items


def js_get(owner: Any, key: str) -> Any:
    """`owner[key]`: `undefined` when missing; reading from `null`/`undefined` throws."""
    if is_nullish(owner):
        kind = "null" if owner is None else "undefined"
        raise JsError("TypeError", f"Cannot read properties of {kind} (reading '{key}')")
    return owner.get(key, UNDEFINED) if is_plain_object(owner) else UNDEFINED


def js_optional_get(owner: Any, key: str) -> Any:
    """`owner?.[key]`: `undefined` when the owner is `null` or `undefined`."""
    return UNDEFINED if is_nullish(owner) else js_get(owner, key)


def is_js_object(value: Any) -> bool:
    """`value && typeof value === "object"`: dicts, arrays, maps, sets and errors."""
    if value is None or value is UNDEFINED:
        return False
    if isinstance(value, (dict, list, tuple, JsMap, JsSet, BaseException)):
        return True
    return hasattr(value, "__dict__") and not callable(value)


def js_property(value: Any, key: str) -> Any:
    """`value[key]` on any JavaScript value (arrays' `length` and indices, an `Error`'s
    fields); UNDEFINED when absent. Unlike `js_get`, never throws."""
    if isinstance(value, JsMap):
        return UNDEFINED
    if isinstance(value, dict):
        return value.get(key, UNDEFINED)
    if isinstance(value, (list, tuple, str)):
        if key == "length":
            return len(value)
        if key.isdigit() and (key == "0" or not key.startswith("0")):
            index = int(key)
            return value[index] if index < len(value) else UNDEFINED
        return UNDEFINED
    if isinstance(value, BaseException):
        if key in ("name", "message"):
            return getattr(value, key, UNDEFINED)
        props = getattr(value, "props", None)
        if isinstance(props, dict):
            return props.get(key, UNDEFINED)
        return UNDEFINED
    if value is None or value is UNDEFINED:
        return UNDEFINED
    return getattr(value, key, UNDEFINED)
