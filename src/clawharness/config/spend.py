"""What spending costs and how much of it may happen: model prices, budgets, loop limits.

- `models.providers.<id>.models[].cost` (OpenClaw's key and shape: USD per million
  tokens, `{input, output, cacheRead, cacheWrite}`, plus this host's `reasoning`) and
  `models.providers.<id>.cost` (every model of the provider, e.g. 0 for a local server);
- `budgets`: hard limits with an optional soft warning level, in USD, tokens, turns and
  wall-clock seconds, for the whole store per UTC day, per agent, per session and per
  HTTP API caller (docs/budgets.md);
- `tools.loopDetection`: when a turn that repeats its tool calls is ended.

What the values mean is in docs/budgets.md; the rules that use them are pure
(`clawharness.spend`).
"""

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, model_validator

from clawharness.config._factories import made, no_entries
from clawharness.config.checks import CheckFailed

__all__ = [
    "BudgetLimits",
    "BudgetReservationConfig",
    "BudgetWindows",
    "BudgetsConfig",
    "LoopDetectionConfig",
    "ModelCost",
]

#: a price in USD per million tokens
_Price = Annotated[float, Field(ge=0, le=1_000_000, allow_inf_nan=False)]


class _Node(BaseModel):
    model_config = ConfigDict(extra="allow", populate_by_name=True, frozen=False)


class ModelCost(_Node):
    """USD per million tokens. `cacheRead` and `cacheWrite` unset: priced as input;
    `reasoning` unset: priced as output (reasoning tokens are output tokens)."""

    input: _Price = 0.0
    output: _Price = 0.0
    cache_read: _Price | None = Field(default=None, alias="cacheRead")
    cache_write: _Price | None = Field(default=None, alias="cacheWrite")
    reasoning: _Price | None = None


class BudgetLimits(_Node):
    """Hard limits (any of them; unset: no limit on that measure) and the soft warning.

    `warnAt` is a share of each limit (0.8: warn at 80 %); a turn that reaches it runs,
    with a warning on its result."""

    usd: float | None = Field(default=None, ge=0, allow_inf_nan=False)
    tokens: int | None = Field(default=None, ge=0)
    turns: int | None = Field(default=None, ge=0)
    wall_clock_seconds: float | None = Field(default=None, ge=0, allow_inf_nan=False,
                                             alias="wallClockSeconds")
    warn_at: float | None = Field(default=None, gt=0, lt=1, alias="warnAt")

    @model_validator(mode="after")
    def _some_limit(self) -> "BudgetLimits":
        if (self.usd is None and self.tokens is None and self.turns is None
                and self.wall_clock_seconds is None):
            raise CheckFailed("a budget needs at least one of usd, tokens, turns, "
                              "wallClockSeconds", code="budget-empty",
                              hint='e.g. {"usd": 5} or {"turns": 100}', show_value=False)
        return self


class BudgetWindows(_Node):
    """A scope's limits per UTC day (`daily`) and over all time (`total`)."""

    daily: BudgetLimits | None = None
    total: BudgetLimits | None = None


class BudgetReservationConfig(_Node):
    """What a turn reserves before it runs (settled with its real usage after)."""

    #: output tokens reserved per model call (unset: the model's `maxTokens`, else 4096)
    output_tokens: int | None = Field(default=None, ge=1, alias="outputTokens")
    #: wall-clock seconds reserved for a turn with no timeout of its own
    seconds: float = Field(default=600.0, gt=0, le=86_400, allow_inf_nan=False)
    #: how long a reservation outlives a process that died holding it, before it is
    #: reclaimed (a live turn renews its reservation at each model call)
    ttl_seconds: float = Field(default=900.0, ge=1, le=7 * 86_400, allow_inf_nan=False,
                               alias="ttlSeconds")


class BudgetsConfig(_Node):
    """`budgets`: every limit a turn falls under must have room for it (docs/budgets.md)."""

    #: everything run on this store (every process, every cluster worker), per UTC day
    daily: BudgetLimits | None = None
    #: each agent (`agents` overrides it for one agent)
    per_agent: BudgetWindows | None = Field(default=None, alias="perAgent")
    agents: dict[str, BudgetWindows] = Field(default_factory=no_entries)
    #: each session key, over its life
    per_session: BudgetLimits | None = Field(default=None, alias="perSession")
    #: each HTTP API caller (`callers` overrides it for one caller)
    per_caller: BudgetWindows | None = Field(default=None, alias="perCaller")
    callers: dict[str, BudgetWindows] = Field(default_factory=no_entries)
    reservation: BudgetReservationConfig = Field(default_factory=made(BudgetReservationConfig))
    #: what an approver (the chat's user, a gateway operator) is asked to add to a
    #: budget that has no room for a turn ("extend by $2?"); unset: nobody is asked
    extend_by: BudgetLimits | None = Field(default=None, alias="extendBy")

    @property
    def configured(self) -> bool:
        """Whether any limit is set (else no turn reserves anything)."""
        return bool(self.daily or self.per_agent or self.agents or self.per_session
                    or self.per_caller or self.callers)


class LoopDetectionConfig(_Node):
    """`tools.loopDetection`: a turn that keeps calling tools without getting anywhere
    is ended (outcome `tool_loop`, with a note in the transcript)."""

    enabled: bool = True
    #: the same tool with the same arguments this many times in a row
    same_call_limit: int = Field(default=5, ge=2, le=1000, alias="sameCallLimit")
    #: this many tool calls in a row with no call or result the turn had not seen
    no_progress_limit: int = Field(default=12, ge=2, le=10_000, alias="noProgressLimit")
