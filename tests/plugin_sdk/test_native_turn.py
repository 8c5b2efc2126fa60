"""`NativeTurn`: the record, the settling steps and the result process-owning harnesses share."""

from __future__ import annotations

import asyncio
import dataclasses
import gc
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from clawharness.plugin_sdk.agent_harness import AgentEvent, AttemptTerminal, assistant_message
from clawharness.plugin_sdk.agent_harness_runtime import NativeTurn
from clawharness.plugin_sdk.agent_harness_tool_runtime import ToolCallRequest, text_result
from clawharness.plugin_sdk.testing import RecordingMirror, attempt_params
from clawharness.records.tool_calls import ToolCallMeta
from clawharness.records.usage import Usage


class KeyedTurn(NativeTurn):
    def message_key(self, suffix: str) -> str:
        return f"demo:native-1:{suffix}"


def test_a_settled_native_tool_call_is_observed_kept_mirrored_and_emitted(tmp_path: Path) -> None:
    mirror = RecordingMirror()
    observed: list[Mapping[str, Any]] = []
    events: list[AgentEvent] = []

    def observe(observation: Mapping[str, Any]) -> Mapping[str, Any]:
        observed.append(observation)
        return {"lastToolError": {"toolName": observation["toolName"]}}

    params = dataclasses.replace(attempt_params(workspace_dir=str(tmp_path), mirror=mirror),
                                 observe_tool_terminal=observe, on_agent_event=events.append)
    turn = KeyedTurn(params, harness_id="demo", details_in_message=False)

    async def run() -> None:
        await turn.tool_calls.settle_native(
            ToolCallRequest("t1", "exec", {"command": "ls"}),
            result=text_result("it failed", details={"raw": 1}), is_error=True)
        await turn.tool_calls.settle_native(
            ToolCallRequest("t2", "read", {}), result=text_result("ok", details={"raw": 2}),
            is_error=False)

    asyncio.run(run())
    assert [o["failure"] for o in observed[:1]] == [{"error": "it failed"}]
    assert observed[0]["result"]["details"] == {"raw": 1} and "failure" not in observed[1]
    assert turn.last_tool_error == {"toolName": "read"}
    assert turn.tool_metas == [ToolCallMeta("exec", "t1", True, "it failed"),
                               ToolCallMeta("read", "t2", False)]
    # details reach the observer, not the transcript message, when the turn says so
    assert [m.get("details") for m in mirror.messages] == [None, None]
    assert mirror.messages == turn.new_messages
    assert mirror.keys == ["demo:native-1:result:t1", "demo:native-1:result:t2"]
    assert [(e.stream, e.data["toolCallId"]) for e in events] == [("tool", "t1"), ("tool", "t2")]


def test_the_result_is_built_from_the_record(tmp_path: Path) -> None:
    mirror = RecordingMirror()
    params = attempt_params(workspace_dir=str(tmp_path), mirror=mirror)
    turn = NativeTurn(params, harness_id="demo")

    async def run() -> None:
        reply = assistant_message("hello")
        await turn.settle(reply, turn.message_key("assistant:1"))
        turn.assistant_texts.append("hello")
        turn.usage = turn.usage.plus(Usage(output=3))

    asyncio.run(run())
    result = turn.result(AttemptTerminal.ok(), native_session_id="native-1",
                         extra={"demoTurn": 7})
    assert result.messages_snapshot == turn.new_messages and result.transcript_mirrored
    assert result.assistant_texts == ["hello"] and result.last_assistant == turn.new_messages[0]
    assert result.extra == {"nativeSessionId": "native-1", "demoTurn": 7}
    assert result.usage is not None and result.usage.output == 3
    assert result.session_id_used == params.session_id and result.agent_harness_id == "demo"
    assert mirror.keys == [f"demo:{params.run_id}:assistant:1"]
    assert turn.result(AttemptTerminal.ok(), usage=False).attempt_usage is None


def test_wait_for_stop_says_whether_the_attempt_was_aborted_or_timed_out(tmp_path: Path) -> None:
    async def run() -> tuple[str | None, str | None]:
        params = attempt_params(workspace_dir=str(tmp_path))
        aborted = NativeTurn(params, harness_id="demo")
        waiting = asyncio.create_task(aborted.wait_for_stop())
        params.abort.set()
        await asyncio.wait_for(waiting, 5)
        loop = asyncio.get_running_loop()
        late = NativeTurn(dataclasses.replace(attempt_params(workspace_dir=str(tmp_path)),
                                              deadline=loop.time()), harness_id="demo")
        await asyncio.wait_for(late.wait_for_stop(), 5)
        return aborted.stop_kind, late.stop_kind

    assert asyncio.run(run()) == ("aborted", "timeout")


def test_a_finished_native_turn_is_freed_without_the_cyclic_collector(tmp_path: Path) -> None:
    mirror = RecordingMirror()
    params = attempt_params(workspace_dir=str(tmp_path), mirror=mirror)

    async def one_turn() -> None:
        turn = KeyedTurn(params, harness_id="demo")
        await turn.tool_calls.settle_native(
            ToolCallRequest("t1", "read", {}), result=text_result("ok"), is_error=False)
        turn.result(AttemptTerminal("ok"))

    was_enabled = gc.isenabled()
    gc.disable()
    try:
        asyncio.run(one_turn())  # a first run makes what is made once
        gc.collect()
        gc.set_debug(gc.DEBUG_SAVEALL)
        asyncio.run(one_turn())
        gc.collect()
        left = [type(thing).__qualname__ for thing in gc.garbage
                if type(thing).__qualname__ in ("KeyedTurn", "ToolCalls", "_PlaceInto")]
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        if was_enabled:
            gc.enable()
    assert mirror.keys == ["demo:native-1:result:t1"] * 2  # the placement still settles
    assert left == []
