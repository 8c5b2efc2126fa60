"""Seed 004 preflight-error scope in the model fallback chain (digest scenario 52)."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from clawharness.errors import (
    AgentHarnessPreflightError,
    ProviderRateLimitError,
    ToolPolicyRejectedError,
)
from clawharness.harness.fallback import (
    mark_turn_claimed,
    record_attempt_selection,
    run_with_model_fallback,
)


@dataclass(frozen=True)
class Candidate:
    model: str
    harness_id: str | None


CHAIN = [Candidate("m1", "codex"), Candidate("m2", "codex"), Candidate("m3", "openclaw")]


def runner(failures: dict[str, BaseException], ran: list[str], *, claim: bool = True):  # type: ignore[no-untyped-def]
    async def run_one(candidate: Candidate) -> str:
        ran.append(candidate.model)
        record_attempt_selection(candidate.harness_id or "openclaw",
                                 builtin=candidate.harness_id == "openclaw")
        if claim and candidate.harness_id != "openclaw":
            mark_turn_claimed()
        error = failures.get(candidate.model)
        if error is not None:
            raise error
        return f"ok:{candidate.model}"

    return run_one


async def test_scenario_52_harness_scope_skips_only_same_harness_candidates() -> None:
    ran: list[str] = []
    error = AgentHarnessPreflightError("codex binary missing", scope="harness")
    outcome = await run_with_model_fallback(CHAIN, runner({"m1": error}, ran))
    assert ran == ["m1", "m3"]
    assert outcome.result == "ok:m3"
    assert [o.status for o in outcome.outcomes] == ["failed", "skipped", "ok"]


async def test_scenario_52_default_preflight_error_stops_the_whole_chain() -> None:
    ran: list[str] = []
    with pytest.raises(AgentHarnessPreflightError, match="bad config"):
        await run_with_model_fallback(CHAIN, runner({"m1": AgentHarnessPreflightError("bad config")},
                                                    ran))
    assert ran == ["m1"]


async def test_candidates_not_proven_to_use_the_harness_still_run() -> None:
    ran: list[str] = []
    chain = [Candidate("m1", "codex"), Candidate("m2", None), Candidate("m3", "codex")]
    outcome = await run_with_model_fallback(
        chain, runner({"m1": AgentHarnessPreflightError("x", scope="harness")}, ran))
    assert ran == ["m1", "m2"] and outcome.result == "ok:m2"


async def test_failure_after_a_plugin_claimed_the_turn_is_never_replayed() -> None:
    ran: list[str] = []
    with pytest.raises(ProviderRateLimitError):
        await run_with_model_fallback(CHAIN, runner({"m1": ProviderRateLimitError("429")}, ran))
    assert ran == ["m1"]


async def test_builtin_provider_failures_may_fall_back_to_the_next_model() -> None:
    ran: list[str] = []
    chain = [Candidate("m1", "openclaw"), Candidate("m2", "openclaw")]
    outcome = await run_with_model_fallback(chain, runner({"m1": ProviderRateLimitError("429")}, ran))
    assert ran == ["m1", "m2"] and outcome.result == "ok:m2"


async def test_non_retryable_builtin_failure_propagates() -> None:
    ran: list[str] = []
    chain = [Candidate("m1", "openclaw"), Candidate("m2", "openclaw")]
    with pytest.raises(ValueError):
        await run_with_model_fallback(chain, runner({"m1": ValueError("bug")}, ran))
    assert ran == ["m1"]


async def test_tool_policy_rejection_is_local_to_the_harness() -> None:
    ran: list[str] = []
    outcome = await run_with_model_fallback(
        CHAIN, runner({"m1": ToolPolicyRejectedError("cannot enforce")}, ran, claim=False))
    assert ran == ["m1", "m3"] and outcome.result == "ok:m3"


async def test_every_candidate_skipped_raises_the_last_harness_error() -> None:
    ran: list[str] = []
    chain = [Candidate("m1", "codex"), Candidate("m2", "codex")]
    with pytest.raises(AgentHarnessPreflightError, match="missing"):
        await run_with_model_fallback(
            chain, runner({"m1": AgentHarnessPreflightError("missing", scope="harness")}, ran))
    assert ran == ["m1"]


async def test_empty_chain_is_a_caller_error() -> None:
    with pytest.raises(ValueError):
        await run_with_model_fallback([], runner({}, []))
