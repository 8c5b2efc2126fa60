"""Terminal tool outcomes: digest scenarios 28-33 and the observer's host-owned facts."""

from __future__ import annotations

from typing import Any

from clawharness.attempt.outcomes import (
    ToolErrorState,
    ToolTerminalObserver,
    register_tool_effect_receipt,
)


def fail(tool: str, args: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"toolName": tool, "arguments": args, "outcome": "failure",
            "failure": {"error": f"{tool} failed"}, **extra}


def ok(tool: str, args: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"toolName": tool, "arguments": args, "outcome": "success", **extra}


def test_scenario_28_unrelated_read_keeps_the_edit_failure() -> None:
    observe = ToolTerminalObserver("run-28")
    observe(fail("edit", {"path": "a", "old_string": "x", "new_string": "y"}))
    after_read = observe(ok("read", {"path": "a"}))
    assert after_read["lastToolError"]["toolName"] == "edit"
    assert after_read["lastToolError"]["mutatingAction"] is True
    assert observe.last_tool_error is not None
    assert observe.last_tool_error["error"] == "edit failed"


def test_scenario_29_write_to_the_same_file_recovers_the_edit() -> None:
    observe = ToolTerminalObserver("run-29")
    observe(fail("edit", {"path": "a"}))
    resolution = observe(ok("write", {"path": "a", "content": "new"}))
    assert "lastToolError" not in resolution
    assert resolution["lastToolRecovery"] == {"toolName": "write"}
    assert observe.last_tool_error is None
    assert observe.last_tool_recovery == {"toolName": "write"}


def test_write_to_another_file_does_not_recover_the_edit() -> None:
    observe = ToolTerminalObserver("run-29b")
    observe(fail("edit", {"path": "a"}))
    resolution = observe(ok("write", {"path": "b"}))
    assert resolution["lastToolError"]["toolName"] == "edit"
    assert "lastToolRecovery" not in resolution


def test_scenario_30_read_only_exec_failure_clears_on_a_later_success() -> None:
    observe = ToolTerminalObserver("run-30")
    failed = observe(fail("exec", {"command": "ls"}))
    assert failed["lastToolError"]["toolName"] == "exec"
    assert failed["lastToolError"]["mutatingAction"] is False
    cleared = observe(ok("web_search", {"query": "weather"}))
    assert "lastToolError" not in cleared
    assert observe.last_tool_error is None


def test_scenario_31_an_unstarted_mutating_failure_counts_as_non_mutating() -> None:
    observe = ToolTerminalObserver("run-31")
    resolution = observe(fail("write", {"path": "a"}, executionStarted=False))
    assert resolution["executionStarted"] is False
    assert resolution["sideEffectEvidence"] is False
    assert resolution["lastToolError"]["mutatingAction"] is False
    assert resolution["lastToolError"]["executionStarted"] is False
    assert "actionFingerprint" not in resolution["lastToolError"]
    assert observe.side_effect_evidence is False


def test_scenario_32_side_effect_evidence_follows_replay_safety() -> None:
    observe = ToolTerminalObserver("run-32")
    rm = observe(ok("exec", {"command": "rm -rf x"}))
    assert rm["sideEffectEvidence"] is True
    assert rm["effectReceipt"] == {"state": "mutation_committed"}
    read = observe(ok("read", {"path": "a"}))
    assert read["sideEffectEvidence"] is False
    assert read["effectReceipt"] == {"state": "read_completed"}
    assert observe.side_effect_evidence is True


def test_scenario_33_two_mutations_stay_ordered_until_their_own_action_recovers() -> None:
    observe = ToolTerminalObserver("run-33")
    a = {"action": "send", "to": "channel:a", "message": "A"}
    b = {"action": "send", "to": "channel:b", "message": "B"}
    observe(fail("message", a, failure={"error": "A failed"}))
    observe(fail("message", b, failure={"error": "B failed"}))
    after_a = observe(ok("message", a))
    assert after_a["lastToolError"]["error"] == "B failed"
    assert [e["error"] for e in observe.unresolved_mutations] == ["B failed"]
    assert after_a["lastToolRecovery"] == {"toolName": "message"}


def test_a_non_mutating_failure_is_not_recorded_over_an_unresolved_mutation() -> None:
    observe = ToolTerminalObserver("run-nm")
    observe(fail("write", {"path": "a"}))
    resolution = observe(fail("web_fetch", {"url": "https://x"}))
    assert resolution["lastToolError"]["toolName"] == "write"


def test_the_same_action_failing_again_moves_to_the_end_once() -> None:
    observe = ToolTerminalObserver("run-dup")
    observe(fail("write", {"path": "a"}, failure={"error": "first"}))
    observe(fail("write", {"path": "b"}))
    last = observe(fail("write", {"path": "a"}, failure={"error": "second"}))
    assert last["lastToolError"]["error"] == "second"
    assert [e.get("fileTarget") for e in observe.unresolved_mutations] == [
        {"path": "b"}, {"path": "a"}
    ]


def test_recovery_latches_until_that_action_fails_again() -> None:
    state = ToolErrorState()
    from clawharness.attempt.mutation import FileTarget, ToolActionRef

    state.record_failure({"toolName": "edit", "mutatingAction": True,
                          "actionFingerprint": "tool=edit|path=a", "fileTarget": {"path": "a"}})
    state.record_success(ToolActionRef("write", None, "tool=write|path=a"), [FileTarget("a")])
    assert state.terminal_state() == {"lastToolRecovery": {"toolName": "write"}}
    state.record_failure({"toolName": "web_fetch", "mutatingAction": False})
    assert state.terminal_state()["lastToolRecovery"] == {"toolName": "write"}
    state.record_failure({"toolName": "write", "mutatingAction": True,
                          "actionFingerprint": "tool=write|path=a", "fileTarget": {"path": "a"}})
    assert "lastToolRecovery" not in state.terminal_state()


def test_host_tracked_facts_win_over_the_harness_report() -> None:
    observe = ToolTerminalObserver("run-host")
    observe.record_execution_started("call-1")
    observe.record_adjusted_arguments("call-1", {"action": "send", "to": "channel:adjusted"})
    resolution = observe({
        "toolCallId": "call-1", "toolName": "message",
        "arguments": {"action": "send", "to": "channel:original"},
        "executionStarted": False, "outcome": "failure",
        "failure": {"error": "timed out", "executionStarted": False},
    })
    assert resolution["executionStarted"] is True
    assert resolution["executedArguments"] == {"action": "send", "to": "channel:adjusted"}
    assert resolution["sideEffectEvidence"] is True
    assert resolution["lastToolError"]["executionStarted"] is True
    assert resolution["lastToolError"]["mutatingAction"] is True


def test_a_pre_execution_block_overrides_a_started_report() -> None:
    observe = ToolTerminalObserver("run-blocked")
    observe.record_pre_execution_blocked("call-b")
    resolution = observe({
        "toolCallId": "call-b", "toolName": "message", "arguments": {"action": "send"},
        "executionStarted": True, "outcome": "failure", "failure": {"error": "blocked"},
    })
    assert resolution["executionStarted"] is False
    assert resolution["effectReceipt"] == {"state": "uncertain"}
    assert resolution["lastToolError"]["mutatingAction"] is False


def test_native_mutation_facts_replace_the_classifier() -> None:
    observe = ToolTerminalObserver("run-native")
    resolution = observe({
        "toolName": "native_shell", "arguments": {"command": "ls"}, "outcome": "failure",
        "nativeMutation": {"mutatingAction": True, "replaySafe": False},
    })
    assert resolution["lastToolError"]["mutatingAction"] is True
    assert resolution["sideEffectEvidence"] is True
    safe = observe({"toolName": "native_read", "outcome": "success",
                    "nativeMutation": {"mutatingAction": False, "replaySafe": True}})
    assert safe["sideEffectEvidence"] is False


def test_owner_declared_persistence_recovers_through_the_same_owner_key() -> None:
    observe = ToolTerminalObserver("run-owner")
    owner = {"ownerKey": '["memory-lancedb","memory_store"]'}
    failed = observe(fail("memory_store", {"text": "metric"}, ownerMutation=owner))
    assert failed["lastToolError"]["mutatingAction"] is True
    cleared = observe(ok("memory_store", {"text": "imperial"}, ownerMutation=owner))
    assert "lastToolError" not in cleared
    unowned = ToolTerminalObserver("run-unowned")(fail("memory_store", {"text": "x"}))
    assert unowned["lastToolError"]["mutatingAction"] is False


def test_a_middleware_failure_marks_the_last_tool_error() -> None:
    observe = ToolTerminalObserver("run-mw")
    resolution = observe(ok("exec", {"cmd": "echo ok"}, result={
        "content": [{"type": "text", "text": "Tool output unavailable"}],
        "details": {"status": "error", "middlewareError": True},
    }))
    assert resolution["lastToolError"]["middlewareError"] is True
    assert resolution["lastToolError"]["toolName"] == "exec"


def test_a_no_start_receipt_on_the_exact_result_object_wins() -> None:
    class HostResult(dict[str, Any]):
        pass

    result = register_tool_effect_receipt(HostResult(content=[]), "not_started")
    resolution = ToolTerminalObserver("run-receipt")(
        ok("write", {"path": "a"}, result=result, executionStarted=True)
    )
    assert resolution["executionStarted"] is False
    assert resolution["effectReceipt"] == {"state": "not_started"}
    copy = dict(result)  # a serialised copy carries no provenance
    again = ToolTerminalObserver("run-receipt-2")(ok("write", {"path": "a"}, result=copy))
    assert again["executionStarted"] is True


def test_a_failure_cannot_overwrite_host_owned_summary_fields() -> None:
    resolution = ToolTerminalObserver("run-owned")(fail(
        "exec", {"command": "rm x"},
        failure={"error": "boom", "toolName": "spoofed", "mutatingAction": False,
                 "errorCode": "EPERM"},
    ))
    error = resolution["lastToolError"]
    assert error["toolName"] == "exec"
    assert error["mutatingAction"] is True
    assert error["errorCode"] == "EPERM"
