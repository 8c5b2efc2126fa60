"""A turn that repeats a tool call is ended with the `tool_loop` outcome and a note."""

from __future__ import annotations

from pathlib import Path
from typing import Any

LOOPING = {"responses": [
    {"match": ".*", "repeat": True,
     "tool_calls": [{"name": "read", "arguments": {"path": "notes.txt"}}]},
]}


async def test_the_same_call_in_a_row_ends_the_turn_with_a_tool_loop(
        scripted_host: Any, tmp_path: Path) -> None:
    (tmp_path / "workspace").mkdir(exist_ok=True)
    (tmp_path / "workspace" / "notes.txt").write_text("nothing new\n")
    host, server = await scripted_host(LOOPING, tools={
        "allow": ["read"], "loopDetection": {"sameCallLimit": 3, "noProgressLimit": 50}})
    result = await host.run_turn("loop1", "read it until it changes")
    assert result.terminal == "aborted"
    assert result.error_type == "tool_loop"
    assert "read with the same arguments 3 times in a row" in (result.error or "")
    assert "loopDetection.sameCallLimit" in str((result.error_details or {}).get("hint"))
    assert len(result.tool_calls) == 3
    results = [e for e in await host.history("loop1") if e.role == "toolResult"]
    assert len(results) == 3
    assert "[clawharness] the turn was ended" in results[-1].text
    # the model was not asked again after the loop was found
    assert len(server.requests) == 3


async def test_loop_detection_can_be_turned_off(scripted_host: Any, tmp_path: Path) -> None:
    (tmp_path / "workspace").mkdir(exist_ok=True)
    (tmp_path / "workspace" / "notes.txt").write_text("same\n")
    host, _ = await scripted_host(LOOPING, tools={"allow": ["read"],
                                                  "loopDetection": {"enabled": False}},
                                  agents={"defaults": {"model": "scripted/m1", "maxSteps": 6,
                                                       "workspace": str(tmp_path / "workspace")}})
    result = await host.run_turn("loop2", "go")
    assert result.error_type != "tool_loop"
    # the step bound ended it instead: five calls ran, the sixth was cut off
    assert [not call.is_error for call in result.tool_calls] == [True] * 5 + [False]
