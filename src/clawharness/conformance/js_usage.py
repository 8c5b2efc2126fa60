"""`normalizeUsage` results in the original's shape.

The original always names `input`, `output`, `cacheRead`, `cacheWrite` and `total`
(`undefined` when unknown) and adds the optional figures only when known.
"""

from __future__ import annotations

from typing import Any

from clawharness.conformance.jsvalue import UNDEFINED
from clawharness.records.usage import ContextUsage, Usage, UsageCost

__all__ = ["encode_usage"]


def _or_undefined(value: object) -> object:
    return UNDEFINED if value is None else value


def _cost(cost: UsageCost) -> dict[str, Any]:
    out: dict[str, Any] = {"total": cost.total}
    if cost.total_origin is not None:
        out["totalOrigin"] = cost.total_origin
    for key, value in (("input", cost.input), ("output", cost.output),
                       ("cacheRead", cost.cache_read), ("cacheWrite", cost.cache_write)):
        if value is not None:
            out[key] = value
    return out


def _context(context: ContextUsage) -> dict[str, Any]:
    if context.state == "unavailable":
        return {"state": "unavailable"}
    return {"state": "available", "promptTokens": context.prompt_tokens,
            "totalTokens": context.total_tokens}


def encode_usage(usage: Usage | None) -> Any:
    """The usage record, or `undefined` when nothing usable was reported."""
    if usage is None:
        return UNDEFINED
    out: dict[str, Any] = {
        "input": _or_undefined(usage.input),
        "output": _or_undefined(usage.output),
        "cacheRead": _or_undefined(usage.cache_read),
        "cacheWrite": _or_undefined(usage.cache_write),
    }
    if usage.cache_write_1h is not None:
        out["cacheWrite1h"] = usage.cache_write_1h
    if usage.cost is not None:
        out["cost"] = _cost(usage.cost)
    if usage.context_usage is not None:
        out["contextUsage"] = _context(usage.context_usage)
    if usage.reasoning_tokens is not None:
        out["reasoningTokens"] = usage.reasoning_tokens
    out["total"] = _or_undefined(usage.total)
    return out
