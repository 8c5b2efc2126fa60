"""Seed 004 preflight-error scope in the model fallback chain (digest scenario 52): the
pure decision the turn runner asks after each attempt (`harness.fallback.decide_fallback`).
The chain walked end to end through a host is in `tests/host/test_turn_model_fallback.py`."""

from __future__ import annotations

from clawharness.errors import AgentHarnessPreflightError
from clawharness.harness.fallback import FallbackAction, FallbackDecision, decide_fallback
from clawharness.harness.types import AttemptResult, AttemptTerminal
from clawharness.records.tool_calls import ToolCallMeta


def failed(**fields: object) -> AttemptResult:
    result = AttemptResult(AttemptTerminal("failed", source="prompt", error="boom"), "s1")
    for name, value in fields.items():
        setattr(result, name, value)
    return result


def test_an_attempt_that_did_not_fail_ends_the_turn() -> None:
    for kind in ("ok", "timeout", "aborted"):
        result = AttemptResult(AttemptTerminal(kind, source="prompt"), "s1")  # type: ignore[arg-type]
        decision = decide_fallback(result, builtin=True, last=False)
        assert decision.action is FallbackAction.END
        assert not decision.records_fallback and not decision.tries_next


def test_the_last_candidate_ends_the_turn_whatever_failed() -> None:
    preflight = AgentHarnessPreflightError("missing", scope="harness")
    decision = decide_fallback(failed(), builtin=True, last=True, preflight=preflight)
    assert decision.action is FallbackAction.END


def test_scenario_52_harness_scope_skips_only_candidates_on_that_harness() -> None:
    decision = decide_fallback(failed(), builtin=False, last=False,
                               preflight=AgentHarnessPreflightError("codex missing",
                                                                    scope="harness"))
    assert decision.action is FallbackAction.SKIP_HARNESS
    assert decision.skip_harness and decision.tries_next and decision.records_fallback


def test_scenario_52_default_preflight_error_stops_the_whole_chain() -> None:
    decision = decide_fallback(failed(), builtin=False, last=False,
                               preflight=AgentHarnessPreflightError("bad config"))
    assert decision.action is FallbackAction.STOP
    assert decision.records_fallback and not decision.tries_next and not decision.skip_harness


def test_a_builtin_failure_before_any_output_falls_back_to_the_next_model() -> None:
    decision = decide_fallback(failed(), builtin=True, last=False)
    assert decision == FallbackDecision(FallbackAction.NEXT, decision.reason)
    assert decision.tries_next and not decision.skip_harness


def test_a_builtin_failure_after_output_is_the_turns() -> None:
    said = failed(assistant_texts=["partial"])
    called = failed(tool_metas=[ToolCallMeta(tool_name="read")])
    for result in (said, called):
        assert decide_fallback(result, builtin=True, last=False).action is FallbackAction.END


def test_a_failure_after_a_plugin_claimed_the_turn_is_never_replayed() -> None:
    decision = decide_fallback(failed(), builtin=False, last=False)
    assert decision.action is FallbackAction.END and "claimed" in decision.reason
