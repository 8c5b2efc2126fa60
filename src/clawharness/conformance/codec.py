"""Decode and encode the conformance vectors' value markers.

See tests/conformance/data/README.md: one-key objects such as `{"$undefined": true}` stand in
for JavaScript values plain JSON cannot express. Decoding turns them into the Python
shapes of `clawharness.conformance.jsvalue`; encoding turns results back, so results compare as
JSON, key order included.
"""

from __future__ import annotations

import math
from typing import Any

from clawharness.conformance.jsvalue import UNDEFINED, JsError, JsMap, JsSet, Undefined

__all__ = ["JsErrorValue", "decode", "encode", "error_marker"]

_MARKERS = {
    "$undefined", "$map", "$set", "$error", "$number", "$anchor", "$ref", "$literal",
    "$concat", "$bigint", "$date", "$regexp", "$function", "$class", "$circular",
}


#: An `Error` instance that travelled as a value (`{"$error": ...}`).
JsErrorValue = JsError


def _marker_key(value: Any) -> str | None:
    if isinstance(value, dict) and len(value) in (1, 2):
        keys = list(value)
        if keys[0] in _MARKERS and (len(keys) == 1 or (keys[0] in ("$anchor", "$class") and keys[1] == "value")):
            return str(keys[0])
    return None


def decode(value: Any, anchors: dict[str, Any] | None = None) -> Any:
    """Turn a marker-encoded JSON value into Python (anchors are scoped to one line)."""
    if anchors is None:
        anchors = {}
    return _decode(value, anchors)


def _decode(value: Any, anchors: dict[str, Any]) -> Any:
    if isinstance(value, list):
        return [_decode(v, anchors) for v in value]
    if not isinstance(value, dict):
        return value
    marker = _marker_key(value)
    if marker is None:
        return {k: _decode(v, anchors) for k, v in value.items()}
    body = value[marker]
    if marker == "$undefined":
        return UNDEFINED
    if marker == "$literal":
        return body
    if marker == "$concat":
        return "".join(body)
    if marker == "$number":
        return {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf, "-0": -0.0}[body]
    if marker == "$map":
        return JsMap((_decode(k, anchors), _decode(v, anchors)) for k, v in body)
    if marker == "$set":
        return JsSet(_decode(v, anchors) for v in body)
    if marker == "$error":
        return JsErrorValue(body.get("name", "Error"), body.get("message", ""), _decode(body.get("props") or {}, anchors))
    if marker == "$bigint":
        return int(body)
    if marker == "$ref":
        return anchors[body]
    if marker == "$anchor":
        inner = value["value"]
        # Build the container first and register it, so a `$ref` inside it can cycle back.
        if isinstance(inner, list):
            out_list: list[Any] = []
            anchors[body] = out_list
            out_list.extend(_decode(v, anchors) for v in inner)
            return out_list
        if isinstance(inner, dict) and _marker_key(inner) is None:
            out: dict[str, Any] = {}
            anchors[body] = out
            for k, v in inner.items():
                out[k] = _decode(v, anchors)
            return out
        decoded = _decode(inner, anchors)
        anchors[body] = decoded
        return decoded
    # $date, $regexp, $function, $class, $circular: pass through as-is.
    return value


def error_marker(exc: BaseException) -> dict[str, Any]:
    """The `{name, message}` shape errors compare on."""
    name = getattr(exc, "js_name", None) or getattr(exc, "name", None) or type(exc).__name__
    if not isinstance(name, str):
        name = type(exc).__name__
    message = getattr(exc, "message", None)
    if not isinstance(message, str):
        message = str(exc.args[0]) if exc.args else ""
    return {"name": name, "message": message}


def encode(value: Any, _stack: tuple[int, ...] = ()) -> Any:
    """Turn a Python result into marker-encoded JSON."""
    if isinstance(value, Undefined):
        return {"$undefined": True}
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        if math.isnan(value):
            return {"$number": "NaN"}
        if math.isinf(value):
            return {"$number": "Infinity" if value > 0 else "-Infinity"}
        if value == 0 and math.copysign(1.0, value) < 0:
            return {"$number": "-0"}
        if value.is_integer() and abs(value) < 2**53:
            return int(value)
        return value
    if id(value) in _stack:
        return {"$circular": True}
    stack = (*_stack, id(value))
    if isinstance(value, JsMap):
        return {"$map": [[encode(k, stack), encode(v, stack)] for k, v in value.items()]}
    if isinstance(value, (JsSet, set, frozenset)):
        return {"$set": [encode(v, stack) for v in value]}
    if isinstance(value, dict):
        return {str(k): encode(v, stack) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [encode(v, stack) for v in value]
    if isinstance(value, BaseException):
        marker = error_marker(value)
        props = getattr(value, "js_props", None)
        if props is None:
            props = getattr(value, "props", None)
        if isinstance(props, dict):
            marker["props"] = encode(props, stack)
        return {"$error": marker}
    to_js = getattr(value, "to_js", None)
    if callable(to_js):
        return encode(to_js(), stack)
    if callable(value):
        return {"$function": getattr(value, "__name__", "anonymous")}
    raise TypeError(f"cannot encode {type(value).__name__} as a conformance value")
