"""The pure translation of turn events and transcripts into ACP session updates."""

from __future__ import annotations

import pytest

from clawharness.acp_serve.updates import (
    plan_update,
    replay_entries,
    tool_finished,
    tool_kind,
    tool_started,
)


@pytest.mark.parametrize(("name", "kind"), [
    ("read", "read"), ("ls", "read"), ("write", "edit"), ("edit", "edit"),
    ("apply_patch", "edit"), ("exec", "execute"), ("web_fetch", "fetch"),
    ("github__search_issues", "search"), ("fs__delete_file", "delete"),
    ("fs__move_file", "move"), ("weather__forecast", "other"),
])
def test_tool_kinds(name: str, kind: str) -> None:
    assert tool_kind(name) == kind


def test_a_plan_event_becomes_the_whole_plan() -> None:
    plan = plan_update({"entries": [
        {"content": "read the code", "status": "completed"},
        {"content": "write the fix", "status": "inProgress", "priority": "high"},
        {"step": "run the tests"},
        {"content": "", "status": "pending"},
        "not an entry",
    ]})
    assert plan is not None
    assert [(e.content, e.status, e.priority) for e in plan.entries] == [
        ("read the code", "completed", "medium"),
        ("write the fix", "in_progress", "high"),
        ("run the tests", "pending", "medium"),
    ]
    assert plan_update({"entries": "nope"}) is None


def test_a_tool_result_keeps_a_diff_and_otherwise_shows_its_preview() -> None:
    start = tool_started({"toolCallId": "c1", "name": "write",
                          "args": {"path": "a.txt", "content": "x"}}, "/p")
    assert start is not None and start.content is not None
    assert start.locations is not None and start.locations[0].path == "/p/a.txt"
    kept = tool_finished({"toolCallId": "c1", "isError": False, "preview": "ok"},
                         keep_content=True)
    assert kept is not None and kept.content is None and kept.status == "completed"
    shown = tool_finished({"toolCallId": "c2", "isError": True, "preview": "boom"},
                          keep_content=False)
    assert shown is not None and shown.status == "failed"
    assert shown.content is not None and shown.content[0].content.text == "boom"


def test_replay_pairs_each_call_with_its_result() -> None:
    updates = replay_entries([
        {"role": "user", "content": [{"type": "text", "text": "hi"}]},
        {"role": "assistant", "content": [
            {"type": "thinking", "thinking": "hmm"},
            {"type": "text", "text": "Reading."},
            {"type": "toolCall", "id": "t1", "name": "read", "arguments": {"path": "a"}}]},
        {"role": "toolResult", "toolCallId": "t1", "toolName": "read",
         "content": [{"type": "text", "text": "contents"}], "isError": False},
        {"role": "assistant", "content": "Done."},
    ], "/p")
    assert [u.session_update for u in updates] == [
        "user_message_chunk", "agent_thought_chunk", "agent_message_chunk", "tool_call",
        "tool_call_update", "agent_message_chunk"]
    call, result = updates[3], updates[4]
    assert call.tool_call_id == result.tool_call_id == "t1"
    assert call.status == "pending" and result.status == "completed"
    assert result.content[0].content.text == "contents"
