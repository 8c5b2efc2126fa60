"""Run conformance vectors: decode the inputs, call the implementation, encode the result."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from typing import Any

from clawharness.conformance.codec import decode, encode, error_marker
from clawharness.conformance.registry import resolve

__all__ = ["compare", "run_case", "run_lines"]

_CAMEL = re.compile(r"(?<!^)(?=[A-Z])")


def _snake(name: str) -> str:
    return _CAMEL.sub("_", name).lower()


def _member(owner: Any, name: str) -> Any:
    if isinstance(owner, dict):
        if name in owner:
            return owner[name]
        raise AttributeError(name)
    for candidate in (_snake(name), name):
        if hasattr(owner, candidate):
            return getattr(owner, candidate)
    raise AttributeError(f"{type(owner).__name__} has no member {name!r}")


def _walk(owner: Any, dotted: str) -> tuple[Any, Any]:
    """Return (parent, value) for a dotted path."""
    parent = None
    value = owner
    for part in dotted.split("."):
        parent = value
        value = _member(value, part)
    return parent, value


def run_case(case: dict[str, Any]) -> dict[str, Any]:
    """Run one vector; returns `{"id", "ok", "result" | "error"}` in marker form."""
    anchors: dict[str, Any] = {}
    out: dict[str, Any] = {"id": case.get("id")}
    try:
        fn_name = case["fn"]
        head, _, rest = fn_name.partition(".")
        target = resolve(fn_name) if not rest else None
        if target is None:
            target = _walk(resolve(head), rest)[1]
        args = decode(case.get("args", []), anchors)
        if case.get("new") or (callable(target) and not isinstance(target, type)):
            value = target(*args)
        else:
            value = target
        for step in case.get("then", []) or []:
            if "get" in step:
                value = _walk(value, step["get"])[1]
            elif "call" in step:
                method = _walk(value, step["call"])[1]
                value = method(*decode(step.get("args", []), anchors))
        out["ok"] = True
        out["result"] = encode(value)
    except Exception as exc:  # the vectors record thrown errors as data
        out["ok"] = False
        out["error"] = error_marker(exc)
    return out


def compare(case: dict[str, Any], got: dict[str, Any]) -> bool:
    """True when `got` matches the case's `expect` (errors on name and message only)."""
    expect = case["expect"]
    if expect["ok"] != got["ok"]:
        return False
    if expect["ok"]:
        return json.dumps(decode_concat(expect["result"])) == json.dumps(got["result"])
    want = expect["error"]
    return bool(want.get("name") == got["error"]["name"] and want.get("message") == got["error"]["message"])


def decode_concat(value: Any) -> Any:
    """Expand only `$concat` markers, leaving the other markers in place for comparison."""
    if isinstance(value, list):
        return [decode_concat(v) for v in value]
    if isinstance(value, dict):
        if list(value) == ["$concat"]:
            return "".join(value["$concat"])
        return {k: decode_concat(v) for k, v in value.items()}
    return value


def run_lines(lines: Iterable[str]) -> Iterator[dict[str, Any]]:
    for line in lines:
        line = line.strip()
        if not line:
            continue
        yield run_case(json.loads(line))
