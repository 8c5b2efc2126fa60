"""How much of a model's context a turn may fill, and what is done before it overflows.

OpenClaw's keys and names, under `agents.defaults` and, for one agent, under
`agents.entries.<id>` (the agent's keys override the defaults' key by key, nested
sections too: `overlay`; `clawharness.config.schema.agent_compaction`,
`agent_context_pruning` resolve an agent's):

- `compaction`: `enabled`, `mode` (`default` | `safeguard`, summarised alike here),
  `reserveTokens` (room left for the reply, raised to `reserveTokensFloor`; both capped
  at half the context window so a small model keeps half for its prompt),
  `keepRecentTokens` (how much of the newest history stays verbatim after a
  compaction), `timeoutSeconds` (the summarising call), `model` (a model to summarise
  with instead of the session's);
- `contextPruning`: `mode` (`off` | `age`; OpenClaw's `cache-ttl` is read as `age`),
  `keepLastAssistants` (tool results of the newest N assistant turns are never pruned),
  `softTrim` (`maxChars`: a result longer than this is cut to `headChars` + `tailChars`),
  `hardClear` (`enabled`, `placeholder`: when the prompt is still over budget, old tool
  results are replaced by the placeholder).

What the values do is in docs/compaction.md; the rules that use them are pure
(`clawharness.context`).
"""

from typing import Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field

from clawharness.config._factories import made

__all__ = [
    "CompactionConfig",
    "ContextPruningConfig",
    "HardClearConfig",
    "SoftTrimConfig",
    "overlay",
]

N = TypeVar("N", bound=BaseModel)


class _Node(BaseModel):
    model_config = ConfigDict(extra="allow", populate_by_name=True, frozen=False)


class CompactionConfig(_Node):
    """`agents.defaults.compaction`."""

    enabled: bool = True
    mode: Literal["default", "safeguard"] = "default"
    reserve_tokens: int = Field(default=16_384, ge=0, alias="reserveTokens")
    reserve_tokens_floor: int = Field(default=20_000, ge=0, alias="reserveTokensFloor")
    keep_recent_tokens: int = Field(default=20_000, ge=1, alias="keepRecentTokens")
    timeout_seconds: float = Field(default=900.0, gt=0, allow_inf_nan=False,
                                   alias="timeoutSeconds")
    model: str | None = None


class SoftTrimConfig(_Node):
    max_chars: int = Field(default=4_000, ge=1, alias="maxChars")
    head_chars: int = Field(default=1_500, ge=0, alias="headChars")
    tail_chars: int = Field(default=1_500, ge=0, alias="tailChars")


class HardClearConfig(_Node):
    enabled: bool = True
    placeholder: str = "[Old tool result content cleared]"


class ContextPruningConfig(_Node):
    """`agents.defaults.contextPruning`."""

    mode: Literal["off", "age", "cache-ttl"] = "age"
    keep_last_assistants: int = Field(default=3, ge=0, alias="keepLastAssistants")
    soft_trim: SoftTrimConfig = Field(default_factory=made(SoftTrimConfig), alias="softTrim")
    hard_clear: HardClearConfig = Field(default_factory=made(HardClearConfig), alias="hardClear")


def overlay(base: N, over: BaseModel | None) -> N:
    """`base` with the keys `over` sets replaced; a nested section is overlaid key by
    key too (an agent's `softTrim: {maxChars: 800}` keeps the defaults' `headChars`)."""
    if over is None or not over.model_fields_set:
        return base
    update: dict[str, Any] = {}
    for name in over.model_fields_set:
        value = getattr(over, name)
        current = getattr(base, name, None)
        if isinstance(value, BaseModel) and isinstance(current, BaseModel):
            value = overlay(current, value)
        update[name] = value
    return base.model_copy(update=update)

