"""Tool-loop rules: the same call N times in a row, or M calls that bring nothing new."""

from __future__ import annotations

from clawharness.harness import TOOL_LOOP, ToolLoopGuard, ToolLoopLimits


def test_the_same_call_n_times_in_a_row_trips_on_the_nth() -> None:
    guard = ToolLoopGuard(ToolLoopLimits(same_call_limit=3, no_progress_limit=100))
    # results differ (a poll), but the call is the same: it counts
    assert guard.observe("exec", {"command": "ls"}, "a", False) is None
    assert guard.observe("exec", {"command": "ls"}, "b", False) is None
    loop = guard.observe("exec", {"command": "ls"}, "c", False)
    assert loop is not None and loop.rule == "same-call" and loop.calls == 3
    assert guard.tripped is loop
    assert guard.observe("exec", {"command": "ls"}, "d", False) is None  # reported once
    assert loop.details()["type"] == TOOL_LOOP
    assert "sameCallLimit" in loop.note


def test_another_call_between_resets_the_run_and_argument_order_does_not_matter() -> None:
    guard = ToolLoopGuard(ToolLoopLimits(same_call_limit=3, no_progress_limit=100))
    guard.observe("read", {"a": 1, "b": 2}, "x", False)
    guard.observe("read", {"b": 2, "a": 1}, "y", False)
    guard.observe("ls", {}, "z", False)
    assert guard.observe("read", {"a": 1, "b": 2}, "w", False) is None
    assert guard.observe("read", {"b": 2, "a": 1}, "v", False) is None
    assert guard.observe("read", {"a": 1, "b": 2}, "u", False) is not None


def test_a_cycle_with_the_same_results_makes_no_progress() -> None:
    guard = ToolLoopGuard(ToolLoopLimits(same_call_limit=100, no_progress_limit=4))
    calls = [("read", {"path": "a"}, "A"), ("read", {"path": "b"}, "B")]
    trips = [guard.observe(name, args, result, False) for _ in range(3)
             for name, args, result in calls]
    # A, B are new; then A, B, A, B repeat what was seen: the fourth such call trips
    assert trips[:5] == [None] * 5
    assert trips[5] is not None and trips[5].rule == "no-progress" and trips[5].calls == 4


def test_new_results_are_progress() -> None:
    guard = ToolLoopGuard(ToolLoopLimits(same_call_limit=100, no_progress_limit=3))
    for i in range(20):
        assert guard.observe("read", {"path": "a" if i % 2 else "b"}, f"r{i}", False) is None
