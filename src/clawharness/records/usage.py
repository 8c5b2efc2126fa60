"""Token usage: the one `Usage` record, read from any spelling, written in one shape.

Every producer (a model transport's call, a harness's attempt totals) and every consumer
(the turn result, spans, the gateway, the OpenAI-compatible HTTP API, the inspector)
uses `Usage`. Its fields are `input`, `output`, `cache_read`, `cache_write` and `total`,
plus `cache_write_1h`, `cost`, `context_usage` and `reasoning_tokens` when known; None
where nothing was reported.

- `normalize_usage(raw)` reads what providers and plugin harnesses report under many
  names (`input_tokens`, `prompt_tokens`, `cache_read_input_tokens`,
  `prompt_tokens_details.cached_tokens`, ...). When a provider counts cached tokens
  inside its input figure, they are subtracted so `input` means uncached input. The
  payload is arbitrary JSON: every field is read with an explicit check.
- `Usage.to_wire()` is the one JSON shape, the original's transcript usage
  (`{"input", "output", "cacheRead", "cacheWrite", "totalTokens"}`, absent figures left
  out): transcript messages, `agent --json`, gateway frames and stored turn records.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Final, Literal

from clawharness._frozen import quick_maker
from clawharness._json import JsonValue

__all__ = ["ContextUsage", "Usage", "UsageCost", "normalize_usage"]

#: token counts are capped at the largest integer every JSON reader holds exactly
_MAX_EXACT_JSON_INTEGER: Final = 2**53 - 1
_Path = tuple[str, ...]


@dataclass(frozen=True, slots=True)
class ContextUsage:
    """How much of the context window the request used, when the provider says."""

    state: Literal["available", "unavailable"]
    prompt_tokens: int | None = None
    total_tokens: int | None = None


@dataclass(frozen=True, slots=True)
class UsageCost:
    """The cost a provider reported. With a zero total, the non-zero parts are kept."""

    total: float
    #: "provider-billed" when the provider's bill, not an estimate, is the source
    total_origin: Literal["provider-billed"] | None = None
    input: float | None = None
    output: float | None = None
    cache_read: float | None = None
    cache_write: float | None = None


@dataclass(frozen=True, slots=True)
class Usage:
    """Token usage in one shape; None where the provider did not report a figure."""

    input: int | None = None
    output: int | None = None
    cache_read: int | None = None
    cache_write: int | None = None
    total: int | None = None
    cache_write_1h: int | None = None
    cost: UsageCost | None = None
    context_usage: ContextUsage | None = None
    reasoning_tokens: int | None = None

    @classmethod
    def counted(cls, input: int = 0, output: int = 0, cache_read: int | None = None,
                cache_write: int | None = None, reasoning: int | None = None) -> Usage:
        """One model call's counts as a transport reads them: `input` is uncached input
        (a provider that counts cached tokens inside its input figure has them taken
        out first), cache reads and writes beside it; `reasoning` is the part of
        `output` the model spent reasoning (when the provider says); `total` is every
        token of the call, as the original's `totalTokens`."""
        total = input + output + (cache_read or 0) + (cache_write or 0)
        if cls is not Usage:
            return cls(input=input, output=output, cache_read=cache_read,
                       cache_write=cache_write, total=total, reasoning_tokens=reasoning)
        return _usage(input, output, cache_read, cache_write, total, None, None, None,
                      reasoning)

    @property
    def whole_input(self) -> int | None:
        """Every input token, cached ones included (OpenAI's and OpenTelemetry's input
        count): `input` plus cache reads and writes; None when no input was reported."""
        if self.input is None:
            return None
        return self.input + (self.cache_read or 0) + (self.cache_write or 0)

    @classmethod
    def zero(cls) -> Usage:
        """An attempt's totals before its first model call: every count 0. One shared
        instance (a frozen Usage of ints is never changed, and making one costs about
        17k instructions, once per attempt)."""
        return _ZERO if cls is Usage else cls(input=0, output=0, cache_read=0, total=0)

    def plus(self, other: Usage) -> Usage:
        """The token counts of both (an attempt's totals over its calls); a figure
        neither reported stays None. Cost and context usage are per call: not summed."""
        # (each count written out: a figure neither reported stays None)
        a, b = self, other
        return _usage(
            b.input if a.input is None else a.input if b.input is None
            else a.input + b.input,
            b.output if a.output is None else a.output if b.output is None
            else a.output + b.output,
            b.cache_read if a.cache_read is None else a.cache_read
            if b.cache_read is None else a.cache_read + b.cache_read,
            b.cache_write if a.cache_write is None else a.cache_write
            if b.cache_write is None else a.cache_write + b.cache_write,
            b.total if a.total is None else a.total if b.total is None
            else a.total + b.total,
            b.cache_write_1h if a.cache_write_1h is None else a.cache_write_1h
            if b.cache_write_1h is None else a.cache_write_1h + b.cache_write_1h,
            None, None,  # cost and context usage: per call, not summed
            b.reasoning_tokens if a.reasoning_tokens is None
            else a.reasoning_tokens if b.reasoning_tokens is None
            else a.reasoning_tokens + b.reasoning_tokens,
        )

    def to_wire(self) -> dict[str, JsonValue]:
        """The usage as the original's transcript writes it: the token counts reported,
        under `input`, `output`, `cacheRead`, `cacheWrite`, `totalTokens`."""
        # (written out, not a loop of getattr: a turn writes a usage several times)
        out: dict[str, JsonValue] = {}
        if self.input is not None:
            out["input"] = self.input
        if self.output is not None:
            out["output"] = self.output
        if self.cache_read is not None:
            out["cacheRead"] = self.cache_read
        if self.cache_write is not None:
            out["cacheWrite"] = self.cache_write
        if self.total is not None:
            out["totalTokens"] = self.total
        return out


#: `Usage.zero()`'s value
_ZERO: Final = Usage(input=0, output=0, cache_read=0, total=0)


#: makes a `Usage` as the class does, in fewer instructions (`clawharness._frozen`): for
#: the Usages made at every model call (`Usage.counted`, `Usage.plus`), ~2.4 -> ~0.8 us
_usage: Final = quick_maker(Usage)


def _get(value: JsonValue, path: _Path) -> JsonValue:
    for key in path:
        if not isinstance(value, dict):
            return None
        value = value.get(key)
    return value


def _present(value: JsonValue, path: _Path) -> bool:
    """True when the path names a field, even one set to null."""
    for key in path[:-1]:
        if not isinstance(value, dict):
            return False
        value = value.get(key)
    return isinstance(value, dict) and path[-1] in value


def _first(value: JsonValue, *paths: _Path) -> JsonValue:
    """The first path with a non-null value."""
    for path in paths:
        found = _get(value, path)
        if found is not None:
            return found
    return None


def _finite(value: JsonValue) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return value if math.isfinite(value) else None


def _token_count(value: JsonValue) -> int | None:
    numeric = _finite(value)
    if numeric is None:
        return None
    if numeric <= 0:
        return 0
    return min(math.trunc(numeric), _MAX_EXACT_JSON_INTEGER)


def normalize_usage(raw: JsonValue) -> Usage | None:
    """The normalized usage, or None when nothing usable was reported."""
    if not isinstance(raw, dict):
        return None
    cache_read = _token_count(_first(
        raw, ("cacheRead",), ("cache_read",), ("cache_read_input_tokens",),
        ("cached_input_tokens",), ("cached",), ("cached_tokens",),
        ("input_tokens_details", "cached_tokens"), ("prompt_tokens_details", "cached_tokens"),
    ))
    cache_write = _token_count(_first(
        raw, ("cacheWrite",), ("cache_write",), ("cache_creation_input_tokens",),
        ("cache_write_input_tokens",), ("input_tokens_details", "cache_write_tokens"),
        ("prompt_tokens_details", "cache_write_tokens"),
        ("prompt_tokens_details", "cache_creation_input_tokens"),
    ))
    direct_input = _finite(raw.get("input"))
    raw_input = _finite(_first(
        raw, ("input",), ("inputTokens",), ("input_tokens",), ("promptTokens",),
        ("prompt_tokens",), ("prompt_n",), ("timings", "prompt_n"),
    ))
    # CLIs report cached tokens inside their input; OpenAI-style details always do.
    cli_cache_in_input = _present(raw, ("cached_input_tokens",)) or _present(raw, ("cached",))
    openai_cache_in_input = any(_present(raw, path) for path in (
        ("cached_tokens",), ("input_tokens_details", "cached_tokens"),
        ("prompt_tokens_details", "cached_tokens"),
    ))
    write_in_input = any(_present(raw, path) for path in (
        ("cache_write_input_tokens",), ("input_tokens_details", "cache_write_tokens"),
        ("prompt_tokens_details", "cache_write_tokens"),
        ("prompt_tokens_details", "cache_creation_input_tokens"),
    ))
    input_tokens: int | None = None
    if raw_input is not None:
        read_in_input = openai_cache_in_input or (direct_input is None and cli_cache_in_input)
        read_part = (cache_read or 0) if read_in_input else 0
        write_part = (cache_write or 0) if direct_input is None and write_in_input else 0
        input_tokens = _token_count(raw_input - read_part - write_part)
    usage = Usage(
        input=input_tokens,
        output=_token_count(_first(
            raw, ("output",), ("outputTokens",), ("output_tokens",), ("completionTokens",),
            ("completion_tokens",), ("predicted_n",), ("timings", "predicted_n"),
        )),
        cache_read=cache_read,
        cache_write=cache_write,
        total=_token_count(_first(raw, ("total",), ("totalTokens",), ("total_tokens",))),
        cache_write_1h=_token_count(raw.get("cacheWrite1h")),
        cost=_cost(raw.get("cost")),
        context_usage=_context_usage(raw.get("contextUsage")),
        reasoning_tokens=_token_count(_first(
            raw, ("reasoningTokens",), ("reasoning_tokens",),
            ("completion_tokens_details", "reasoning_tokens"),
            ("output_tokens_details", "reasoning_tokens"),
            ("output_tokens_details", "thinking_tokens"),
        )),
    )
    reported = (usage.input, usage.output, usage.cache_read, usage.cache_write,
                usage.context_usage, usage.reasoning_tokens, usage.total, usage.cost)
    return None if all(value is None for value in reported) else usage


def _context_usage(context: JsonValue) -> ContextUsage | None:
    state = _get(context, ("state",))
    if state == "unavailable":
        return ContextUsage("unavailable")
    if state != "available":
        return None
    prompt = _token_count(_get(context, ("promptTokens",)))
    total = _token_count(_get(context, ("totalTokens",)))
    if prompt is None or total is None or total < prompt:
        return None
    return ContextUsage("available", prompt, total)


def _cost(cost: JsonValue) -> UsageCost | None:
    total = _finite(_get(cost, ("total",)))
    if total is None or total < 0:
        return None
    billed = _get(cost, ("totalOrigin",)) == "provider-billed"
    parts: dict[str, float | None] = {}
    if total == 0:
        for key in ("input", "output", "cacheRead", "cacheWrite"):
            component = _finite(_get(cost, (key,)))
            parts[key] = component if component is not None and component != 0 else None
    return UsageCost(
        total=total,
        total_origin="provider-billed" if billed else None,
        input=parts.get("input"),
        output=parts.get("output"),
        cache_read=parts.get("cacheRead"),
        cache_write=parts.get("cacheWrite"),
    )
