"""Normalize provider token-usage payloads into one shape.

Providers report usage under many names (`input_tokens`, `prompt_tokens`,
`cache_read_input_tokens`, `prompt_tokens_details.cached_tokens`, …). The normalized
record has `input`, `output`, `cacheRead`, `cacheWrite` and `total`, plus `cacheWrite1h`,
`cost`, `contextUsage` and `reasoningTokens` when known. When a provider counts cached
tokens inside its input figure, they are subtracted so `input` means uncached input.
"""

from __future__ import annotations

import math
from typing import Any

from clawharness._jsvalue import UNDEFINED
from clawharness.tools._js import is_js_number, js_get, js_truthy

__all__ = ["normalize_usage"]

_MAX_SAFE_INTEGER = 2**53 - 1
_COST_COMPONENTS = ("input", "output", "cacheRead", "cacheWrite")


def _get(value: Any, *path: str) -> Any:
    current = value
    for key in path:
        if current is None or current is UNDEFINED:
            return UNDEFINED
        current = js_get(current, key)
    return current


def _first(value: Any, *paths: tuple[str, ...]) -> Any:
    """`a ?? b ?? c` over property paths."""
    for path in paths:
        found = _get(value, *path)
        if found is not None and found is not UNDEFINED:
            return found
    return UNDEFINED


def _finite(value: Any) -> float | int | None:
    if is_js_number(value) and math.isfinite(value):
        return value  # type: ignore[no-any-return]
    return None


def _token_count(value: Any) -> Any:
    numeric = _finite(value)
    if numeric is None:
        return UNDEFINED
    if numeric <= 0:
        return 0
    return min(math.trunc(numeric), _MAX_SAFE_INTEGER)


def _present(value: Any, *path: str) -> bool:
    return _get(value, *path) is not UNDEFINED


def normalize_usage(raw: Any) -> Any:
    """The normalized usage record, or UNDEFINED when nothing usable was reported."""
    if not js_truthy(raw):
        return UNDEFINED
    cache_read = _token_count(
        _first(
            raw,
            ("cacheRead",),
            ("cache_read",),
            ("cache_read_input_tokens",),
            ("cached_input_tokens",),
            ("cached",),
            ("cached_tokens",),
            ("input_tokens_details", "cached_tokens"),
            ("prompt_tokens_details", "cached_tokens"),
        )
    )
    cache_write = _token_count(
        _first(
            raw,
            ("cacheWrite",),
            ("cache_write",),
            ("cache_creation_input_tokens",),
            ("cache_write_input_tokens",),
            ("input_tokens_details", "cache_write_tokens"),
            ("prompt_tokens_details", "cache_write_tokens"),
            ("prompt_tokens_details", "cache_creation_input_tokens"),
        )
    )
    cache_write_1h = _token_count(_get(raw, "cacheWrite1h"))
    direct_input = _finite(_get(raw, "input"))
    raw_input = _finite(
        _first(
            raw,
            ("input",),
            ("inputTokens",),
            ("input_tokens",),
            ("promptTokens",),
            ("prompt_tokens",),
            ("prompt_n",),
            ("timings", "prompt_n"),
        )
    )
    cli_cache_in_input = _present(raw, "cached_input_tokens") or _present(raw, "cached")
    openai_cache_in_input = (
        _present(raw, "cached_tokens")
        or _present(raw, "input_tokens_details", "cached_tokens")
        or _present(raw, "prompt_tokens_details", "cached_tokens")
    )
    write_in_input = (
        _present(raw, "cache_write_input_tokens")
        or _present(raw, "input_tokens_details", "cache_write_tokens")
        or _present(raw, "prompt_tokens_details", "cache_write_tokens")
        or _present(raw, "prompt_tokens_details", "cache_creation_input_tokens")
    )
    normalized_input: Any = UNDEFINED
    if raw_input is not None:
        read_part = (
            _or_zero(cache_read)
            if openai_cache_in_input or (direct_input is None and cli_cache_in_input)
            else 0
        )
        write_part = _or_zero(cache_write) if direct_input is None and write_in_input else 0
        normalized_input = raw_input - read_part - write_part
    input_tokens = _token_count(normalized_input)
    output = _token_count(
        _first(
            raw,
            ("output",),
            ("outputTokens",),
            ("output_tokens",),
            ("completionTokens",),
            ("completion_tokens",),
            ("predicted_n",),
            ("timings", "predicted_n"),
        )
    )
    context_usage = _context_usage(raw)
    reasoning = _token_count(
        _first(
            raw,
            ("reasoningTokens",),
            ("reasoning_tokens",),
            ("completion_tokens_details", "reasoning_tokens"),
            ("output_tokens_details", "reasoning_tokens"),
            ("output_tokens_details", "thinking_tokens"),
        )
    )
    total = _token_count(_first(raw, ("total",), ("totalTokens",), ("total_tokens",)))
    cost = _cost(raw)
    values = (input_tokens, output, cache_read, cache_write, context_usage, reasoning, total, cost)
    if all(v is UNDEFINED for v in values):
        return UNDEFINED
    out: dict[str, Any] = {
        "input": input_tokens,
        "output": output,
        "cacheRead": cache_read,
        "cacheWrite": cache_write,
    }
    if cache_write_1h is not UNDEFINED:
        out["cacheWrite1h"] = cache_write_1h
    if cost is not UNDEFINED:
        out["cost"] = cost
    if context_usage is not UNDEFINED:
        out["contextUsage"] = context_usage
    if reasoning is not UNDEFINED:
        out["reasoningTokens"] = reasoning
    out["total"] = total
    return out


def _or_zero(value: Any) -> Any:
    return 0 if value is UNDEFINED else value


def _context_usage(raw: Any) -> Any:
    context = _get(raw, "contextUsage")
    state = _get(context, "state")
    if state == "unavailable":
        return {"state": "unavailable"}
    if state != "available":
        return UNDEFINED
    prompt = _token_count(_get(context, "promptTokens"))
    total = _token_count(_get(context, "totalTokens"))
    if prompt is UNDEFINED or total is UNDEFINED or total < prompt:
        return UNDEFINED
    return {"state": "available", "promptTokens": prompt, "totalTokens": total}


def _cost(raw: Any) -> Any:
    cost = _get(raw, "cost")
    total = _finite(_get(cost, "total"))
    if total is None or total < 0:
        return UNDEFINED
    out: dict[str, Any] = {"total": total}
    if _get(cost, "totalOrigin") == "provider-billed":
        out["totalOrigin"] = "provider-billed"
    if total == 0:
        for key in _COST_COMPONENTS:
            component = _finite(_get(cost, key))
            if component is not None and component != 0:
                out[key] = component
    return out
