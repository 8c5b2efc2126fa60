"""The model fallback chain and `AgentHarnessPreflightError` scope.

`run_with_model_fallback(candidates, run_one)` tries candidates in order:

- success stops the chain;
- `AgentHarnessPreflightError` without scope is terminal for the whole chain;
- with `scope="harness"` (and `ToolPolicyRejectedError`, which is local to the harness by
  nature) only later candidates *proven* to select the same harness are skipped; anything
  else still runs through its normal runtime and policy checks;
- once a plugin harness claimed the turn (its `run_attempt` was entered), any other
  failure propagates: the turn is never replayed through another runtime;
- before a plugin claims the turn, `is_retryable(error)` decides whether the next
  candidate is tried (by default: provider failures of the built-in runtime).

The host reports the attempt boundary through `record_attempt_selection` (the harness
actually selected for this candidate) and `mark_turn_claimed` (a plugin harness started).
Both write to the current chain's boundary through a context variable, so the host code
that runs a candidate needs no extra parameter.
"""

from __future__ import annotations

import contextvars
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Generic, Literal, TypeVar

from clawharness.errors import AgentHarnessPreflightError, ProviderError, ToolPolicyRejectedError

__all__ = [
    "AttemptBoundary",
    "CandidateOutcome",
    "FallbackRun",
    "current_attempt_boundary",
    "mark_turn_claimed",
    "record_attempt_selection",
    "run_with_model_fallback",
]

C = TypeVar("C")
T = TypeVar("T")


@dataclass(slots=True)
class AttemptBoundary:
    """What the host learned about one candidate's attempt before it failed or finished."""

    selected_harness_id: str | None = None
    builtin: bool | None = None
    claimed: bool = False


_BOUNDARY: contextvars.ContextVar[AttemptBoundary | None] = contextvars.ContextVar(
    "clawharness_attempt_boundary", default=None
)


def current_attempt_boundary() -> AttemptBoundary | None:
    """The boundary of the candidate being run, or None outside a fallback chain."""
    return _BOUNDARY.get()


def record_attempt_selection(harness_id: str, *, builtin: bool) -> None:
    """Host: the harness selection made for the current candidate."""
    boundary = _BOUNDARY.get()
    if boundary is not None:
        boundary.selected_harness_id = harness_id
        boundary.builtin = builtin


def mark_turn_claimed() -> None:
    """Host: a plugin harness is about to run; from here failures are never replayed."""
    boundary = _BOUNDARY.get()
    if boundary is not None and boundary.builtin is not True:
        boundary.claimed = True


@dataclass(frozen=True, slots=True)
class CandidateOutcome(Generic[C]):
    """What happened to one candidate."""

    candidate: C
    status: Literal["ok", "failed", "skipped"]
    harness_id: str | None = None
    error: BaseException | None = None
    reason: str | None = None


@dataclass(frozen=True, slots=True)
class FallbackRun(Generic[C, T]):
    """The successful result and the chain's history."""

    result: T
    candidate: C
    outcomes: tuple[CandidateOutcome[C], ...]


def _default_harness_id(candidate: object) -> str | None:
    value = getattr(candidate, "harness_id", None)
    return value if isinstance(value, str) else None


def _default_retryable(error: BaseException) -> bool:
    return isinstance(error, ProviderError)


def _harness_scoped(error: BaseException) -> bool:
    if isinstance(error, ToolPolicyRejectedError):
        return True
    return isinstance(error, AgentHarnessPreflightError) and error.scope == "harness"


async def run_with_model_fallback(
    candidates: Sequence[C],
    run_one: Callable[[C], Awaitable[T]],
    *,
    resolve_harness_id: Callable[[C], str | None] = _default_harness_id,
    is_retryable: Callable[[BaseException], bool] = _default_retryable,
) -> FallbackRun[C, T]:
    """Run candidates in order under the preflight-scope rules (module docstring).

    `resolve_harness_id(candidate)` proves which harness a later candidate would select
    (None: not proven, so it is never skipped).
    """
    if not candidates:
        raise ValueError("run_with_model_fallback needs at least one candidate")
    outcomes: list[CandidateOutcome[C]] = []
    skipped_harnesses: set[str] = set()
    last_error: BaseException | None = None
    for candidate in candidates:
        proven = resolve_harness_id(candidate)
        if proven is not None and proven in skipped_harnesses:
            outcomes.append(CandidateOutcome(candidate, "skipped", proven,
                                             reason="harness-scoped preflight failure"))
            continue
        boundary = AttemptBoundary()
        token = _BOUNDARY.set(boundary)
        try:
            result = await run_one(candidate)
        except BaseException as error:
            harness_id = boundary.selected_harness_id or proven
            outcomes.append(CandidateOutcome(candidate, "failed", harness_id, error))
            if not isinstance(error, Exception):
                raise
            if isinstance(error, AgentHarnessPreflightError) and error.scope != "harness":
                raise
            if _harness_scoped(error):
                if harness_id is None:
                    # the failing harness is unknown, so no candidate can be proven equal
                    raise
                skipped_harnesses.add(harness_id)
                last_error = error
                continue
            if boundary.claimed or not is_retryable(error):
                raise
            last_error = error
            continue
        finally:
            _BOUNDARY.reset(token)
        outcomes.append(CandidateOutcome(candidate, "ok", boundary.selected_harness_id or proven))
        return FallbackRun(result=result, candidate=candidate, outcomes=tuple(outcomes))
    assert last_error is not None
    raise last_error
