"""Tool `result` events carry a short, redacted preview of what the call produced."""

from __future__ import annotations

from typing import Any

from clawharness.attempt.tool_previews import PREVIEW_CHARS, tool_result_preview
from clawharness.attempt.turn import TurnOptions
from clawharness.harness.types import AgentEvent


def _tool_events(events: list[AgentEvent]) -> list[dict[str, Any]]:
    return [dict(e.data) for e in events if e.stream == "tool"]


async def test_a_successful_call_reports_the_first_line_of_its_result(scripted_host: Any) -> None:
    host, _ = await scripted_host({"responses": [
        {"tool_calls": [{"name": "write", "arguments": {"path": "a.txt", "content": "hello"}}]},
        {"text": "done"},
    ]})
    events: list[AgentEvent] = []
    result = await host.run_turn("p1", "write it", TurnOptions(on_agent_event=events.append))
    assert result.terminal == "ok"
    start, end = _tool_events(events)
    assert start["phase"] == "start" and start["args"] == {"path": "a.txt", "content": "hello"}
    assert end["phase"] == "result" and end["isError"] is False
    assert end["preview"] == "Successfully wrote 5 bytes to a.txt"


async def test_a_refused_call_previews_the_refusal_the_model_saw(scripted_host: Any) -> None:
    host, _ = await scripted_host(
        {"responses": [{"tool_calls": [{"name": "exec", "arguments": {"command": "ls"}}]},
                       {"text": "ok"}]},
        tools={"deny": ["exec"]})
    events: list[AgentEvent] = []
    await host.run_turn("p2", "list", TurnOptions(on_agent_event=events.append))
    end = _tool_events(events)[-1]
    assert end["isError"] is True
    refusal = next(e for e in await host.history("p2") if e.role == "toolResult")
    assert "exec" in refusal.text
    assert end["preview"] == refusal.text.strip().splitlines()[0]


async def test_no_listener_means_no_preview_work_and_the_turn_is_unchanged(scripted_host: Any) -> None:
    host, _ = await scripted_host({"responses": [
        {"tool_calls": [{"name": "write", "arguments": {"path": "b.txt", "content": "x"}}]},
        {"text": "done"},
    ]})
    result = await host.run_turn("p3", "write it")
    assert [(c.tool_name, c.is_error) for c in result.tool_calls] == [("write", False)]


def test_a_failed_command_shows_its_first_and_last_line() -> None:
    preview = tool_result_preview({
        "toolCallId": "c1", "outcome": "failure",
        "result": {"content": [{"type": "text",
                                "text": "ls: cannot access 'x'\n\nCommand exited with code 2"}]},
        "failure": {"error": "ls: cannot access 'x'\n\nCommand exited with code 2"},
    })
    assert preview == "ls: cannot access 'x' … Command exited with code 2"


def test_a_preview_is_one_line_cut_to_length_and_redacted() -> None:
    secret = "sk-" + "a1B2c3D4" * 6
    text = f"token={secret} " + "word " * 100 + "\nsecond line"
    preview = tool_result_preview({"outcome": "success",
                                   "result": {"content": [{"type": "text", "text": text}]}})
    assert preview is not None
    assert secret not in preview and "\n" not in preview
    assert len(preview) <= PREVIEW_CHARS and preview.endswith("…")


def test_a_result_without_text_has_no_preview() -> None:
    assert tool_result_preview({"outcome": "success", "result": {"content": []}}) is None
    assert tool_result_preview({"outcome": "success", "result": None}) is None
