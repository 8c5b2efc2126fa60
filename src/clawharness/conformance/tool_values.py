"""Turn the tool-helper vectors' JavaScript values into the JSON the core reads, and back.

The core's tool helpers take JSON (dicts, lists, strings, numbers, booleans, None).
The vectors carry JavaScript values with no JSON twin, and the original's helpers
treat them in ways these views reproduce:

- reading helpers (`isToolResultError`, `extractToolErrorMessage`, the tool-call detail
  and replay checks) read `undefined` like an absent field, a `Map` or `Set` like an
  object with no fields, and an `Error` like an object whose `message` and `name` can be
  read but whose only listed fields are its own properties (what `JSON.stringify` and
  `Object.entries` see): `read_view`;
- `sanitizeToolArgs` copies a `Map` or `Set` as an empty object: `args_view`;
- `sanitizeToolResult` leaves a nested `Map` or `Set` as it is (it walks plain objects
  and arrays only): `result_view`, whose `Opaque` leaves encode back to the original.

Each view keeps identity: a value met twice becomes the same converted value, so the
core's repeated-reference and cycle rules see what the original saw.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Any

from clawharness.conformance.jsvalue import UNDEFINED, JsError, JsMap, JsSet

__all__ = ["ErrorView", "Opaque", "args_view", "read_view", "result_view"]


class ErrorView(Mapping[str, Any]):
    """A JavaScript `Error` read as an object: `message`/`name` readable, props listed."""

    def __init__(self, error: JsError, props: dict[str, Any]) -> None:
        self._error = error
        self._props = props

    def __getitem__(self, key: str) -> Any:
        if key == "message":
            return self._error.message
        if key == "name":
            return self._error.name
        return self._props[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._props)

    def __len__(self) -> int:
        return len(self._props)


class Opaque:
    """A JavaScript value the core must pass through untouched; encodes as the original."""

    def __init__(self, value: Any) -> None:
        self.value = value

    def to_js(self) -> Any:
        return self.value


def _walk(
    value: Any,
    memo: dict[int, Any],
    leaf: Callable[[Any, dict[int, Any]], Any],
    drop_undefined: bool,
) -> Any:
    """Rebuild plain objects and arrays, handing every other value to `leaf`."""
    if isinstance(value, (JsMap, JsSet)) or not isinstance(value, (dict, list)):
        return leaf(value, memo)
    if id(value) in memo:
        return memo[id(value)]
    if isinstance(value, list):
        out_list: list[Any] = []
        memo[id(value)] = out_list
        for item in value:
            dropped = drop_undefined and item is UNDEFINED
            out_list.append(None if dropped else _walk(item, memo, leaf, drop_undefined))
        return out_list
    out: dict[str, Any] = {}
    memo[id(value)] = out
    for key, child in value.items():
        if not (drop_undefined and child is UNDEFINED):
            out[key] = _walk(child, memo, leaf, drop_undefined)
    return out


def _remembered(value: Any, memo: dict[int, Any], make: Callable[[], Any]) -> Any:
    if id(value) not in memo:
        memo[id(value)] = make()
    return memo[id(value)]


def _read_leaf(value: Any, memo: dict[int, Any]) -> Any:
    if value is UNDEFINED:
        return None
    if isinstance(value, (JsMap, JsSet)):
        return _remembered(value, memo, dict)
    if isinstance(value, JsError):
        if id(value) not in memo:
            props: dict[str, Any] = {}
            memo[id(value)] = ErrorView(value, props)
            props.update(_walk(dict(value.props), memo, _read_leaf, True))
        return memo[id(value)]
    return value


def read_view(value: Any) -> Any:
    """The JSON a reading helper sees (see the module docstring)."""
    return _walk(value, {}, _read_leaf, True)


def _args_leaf(value: Any, memo: dict[int, Any]) -> Any:
    if isinstance(value, (JsMap, JsSet)):
        return _remembered(value, memo, dict)
    return value


def args_view(value: Any) -> Any:
    """The JSON `sanitizeToolArgs` sees: maps and sets as empty objects."""
    return _walk(value, {}, _args_leaf, False)


def _result_leaf(value: Any, memo: dict[int, Any]) -> Any:
    if isinstance(value, (JsMap, JsSet)):
        return _remembered(value, memo, lambda: Opaque(value))
    return value


def result_view(value: Any) -> Any:
    """The JSON `sanitizeToolResult` sees: a top-level map or set is an empty object
    (spreading one copies nothing); nested ones pass through untouched."""
    if isinstance(value, (JsMap, JsSet)):
        return {}
    return _walk(value, {}, _result_leaf, False)
