"""`sessions_spawn`'s pure parts: its arguments checked, its receipt, the announcement,
and where a fork taken during a turn may cut."""

from __future__ import annotations

import dataclasses
import json

import pytest

from clawharness.errors import SubagentError
from clawharness.store import SubagentRecord, TranscriptEntry
from clawharness.subagents import (
    announcement,
    parse_spawn_request,
    settled_through,
    spawn_result,
)


def test_the_arguments_openclaw_sends_are_read() -> None:
    request = parse_spawn_request({
        "task": "  triage the tests ", "label": "triage", "runtime": "subagent",
        "agentId": "worker", "model": "openai/gpt-5", "context": "fork",
        "timeoutSeconds": 90.0})
    assert (request.task, request.label, request.runtime, request.agent_id) == (
        "triage the tests", "triage", None, "worker")
    assert (request.model, request.context, request.run_timeout_seconds) == (
        "openai/gpt-5", "fork", 90)
    assert parse_spawn_request({"task": "x", "runtime": "acp/claude"}).runtime == "acp/claude"
    assert parse_spawn_request({"task": "x"}).context == "fresh"


@pytest.mark.parametrize(("arguments", "says"), [
    ({}, "'task' is required"),
    ({"task": "  "}, "'task' is required"),
    ({"task": 3}, "'task' must be a string"),
    ({"task": "x", "context": "inherit"}, "is not 'fresh' or 'fork'"),
    ({"task": "x", "agentId": "no such/agent"}, "invalid agentId"),
    ({"task": "x", "runtime": "acp"}, "runtime 'acp/<agent>'"),
    ({"task": "x", "runTimeoutSeconds": -1}, "must be a number >= 0"),
    ({"task": "x", "runTimeoutSeconds": True}, "must be a number >= 0"),
])
def test_bad_arguments_are_refused_saying_why(arguments: dict[str, object],
                                              says: str) -> None:
    with pytest.raises(SubagentError, match=says.replace("(", r"\(").replace(")", r"\)")):
        parse_spawn_request(arguments)


RECORD = SubagentRecord(child_key="agent:main:subagent:1", parent_key="agent:main:boss",
                        run_id="run-1", agent_id="main", status="ok", depth=1,
                        task="say hi", label="greeter", result="hi")


def test_the_receipt_is_json_text_and_details() -> None:
    accepted = spawn_result("accepted", record=RECORD, model_applied=True)
    assert json.loads(accepted["content"][0]["text"]) == accepted["details"]
    assert accepted["details"]["childSessionKey"] == RECORD.child_key
    assert "isError" not in accepted
    refused = spawn_result("forbidden", error="too deep")
    assert refused["isError"] and refused["details"] == {"status": "forbidden",
                                                          "error": "too deep"}


def test_the_announcement_names_the_child_and_carries_its_result() -> None:
    text = announcement(RECORD)
    assert text.startswith('[Subagent] The sub-agent task "greeter" completed.')
    assert "agent:main:subagent:1" in text and text.endswith("Result:\nhi")
    failed = announcement(dataclasses.replace(RECORD, status="error", result=None,
                                              error="boom", label=None))
    assert "agent:main:subagent:1 failed" in failed and failed.endswith("Error: boom")



def _entry(seq: int, role: str, content: dict[str, object]) -> TranscriptEntry:
    return TranscriptEntry("agent:main:boss", "s", seq, role, content, {}, None, None, 0.0)


def test_a_fork_during_a_turn_cuts_before_an_unanswered_call() -> None:
    call = {"role": "assistant", "content": [{"type": "toolCall", "id": "c1"}]}
    entries = [_entry(1, "user", {"role": "user"}),
               _entry(2, "assistant", call),
               _entry(3, "toolResult", {"toolCallId": "c1"}),
               _entry(4, "assistant", {"content": [{"type": "toolCall", "id": "c2"}]})]
    assert settled_through(entries) == 3
    assert settled_through(entries[:2]) == 1
    assert settled_through([entries[1]]) is None
    assert settled_through([]) is None
