"""The exactly-once rule (`clawharness.tools.outcomes.decide`), as a pure function."""

from __future__ import annotations

from clawharness.store import ToolCallClaim, ToolCallKey, ToolCallRecord
from clawharness.tools.outcomes import decide

KEY = ToolCallKey("s", "r", "c")


def claim(*, fresh: bool, state_changing: bool = True, outcome: dict | None = None,
          committed: bool = False, is_error: bool = False) -> ToolCallClaim:
    return ToolCallClaim(ToolCallRecord(KEY, "exec", state_changing, 1.0, outcome, is_error,
                                        2.0 if committed else None), fresh)


def test_a_fresh_claim_runs() -> None:
    assert decide(claim(fresh=True)).action == "run"


def test_a_committed_outcome_replays_its_result_and_error() -> None:
    result = {"content": [{"type": "text", "text": "done"}]}
    ok = decide(claim(fresh=False, committed=True, outcome={"result": result, "error": None}))
    assert (ok.action, ok.result, ok.error) == ("replay", result, None)
    failed = decide(claim(fresh=False, committed=True, is_error=True,
                          outcome={"result": None, "error": "exit 1"}))
    assert (failed.action, failed.result, failed.error) == ("replay", None, "exit 1")


def test_a_started_state_changing_call_without_an_outcome_is_interrupted() -> None:
    decision = decide(claim(fresh=False))
    assert decision.action == "interrupted" and decision.result is None
    assert decision.error is not None
    assert "'exec' was interrupted with unknown effect" in decision.error
    assert "not run again" in decision.error


def test_a_started_read_only_call_without_an_outcome_runs_again() -> None:
    assert decide(claim(fresh=False, state_changing=False)).action == "run"
    # committed, even a read replays: the model sees what it saw before
    replay = decide(claim(fresh=False, state_changing=False, committed=True,
                          outcome={"result": {"content": []}, "error": None}))
    assert replay.action == "replay"
