"""session/prompt over `clawharness acp`: streamed text, tool calls with kinds and
locations, the client's files and terminals as the tools' backends, approvals as
session/request_permission, session/cancel, and failures, through the ACP library's
client side on a real host and a scripted model."""

from __future__ import annotations

import asyncio
import shutil
import time
from typing import Any

import pytest
from acp import RequestError
from acp.schema import (
    EmbeddedResourceContentBlock,
    ImageContentBlock,
    ResourceContentBlock,
    TextContentBlock,
    TextResourceContents,
)

OFF = {"model": "scripted/m1", "sandbox": {"mode": "off"}}


def text(value: str) -> list[TextContentBlock]:
    return [TextContentBlock(type="text", text=value)]


async def opened(s: Any, **caps: bool) -> str:
    await s.initialize(**caps)
    return str((await s.conn.new_session(cwd=str(s.project), mcp_servers=[])).session_id)


async def test_a_reply_streams_as_message_chunks_and_ends_the_turn(served: Any) -> None:
    s = await served({"responses": [{"match": "hello", "text": "Hello from the host."}]})
    sid = await opened(s)
    done = await s.conn.prompt(session_id=sid, prompt=text("hello"))
    assert done.stop_reason == "end_turn"
    assert len(s.client.of("agent_message_chunk")) > 1  # streamed, not one block
    assert s.client.text() == "Hello from the host."
    assert done.usage is not None and done.usage.output_tokens > 0
    entries = await s.host.history(sid)
    assert [(e.role, e.text) for e in entries] == [("user", "hello"),
                                                   ("assistant", "Hello from the host.")]


async def test_thoughts_stream_as_thought_chunks(served: Any) -> None:
    script = {"responses": [{"match": "why", "thinking": "The user asks why; be brief.",
                             "text": "Because."}]}
    s = await served(script)
    sid = await opened(s)
    await s.conn.prompt(session_id=sid, prompt=text("why?"))
    assert s.client.text("agent_thought_chunk") == "The user asks why; be brief."
    kinds = s.client.kinds()
    assert kinds.index("agent_thought_chunk") < kinds.index("agent_message_chunk")
    assert s.client.text() == "Because."
    # and a load shows them again
    before = len(s.client.updates)
    await s.conn.load_session(cwd=str(s.project), session_id=sid, mcp_servers=[])
    replayed = [u for _, u in s.client.updates[before:]]
    assert [u.content.text for u in replayed if u.session_update == "agent_thought_chunk"] == [
        "The user asks why; be brief."]


async def test_an_edit_reaches_the_editor_as_fs_write_text_file(served: Any) -> None:
    script = {"responses": [
        {"match": "rename", "tool_calls": [{"id": "call-e", "name": "edit", "arguments": {
            "path": "src/app.py", "oldText": "old_name", "newText": "new_name"}}]},
        {"match": "Successfully replaced", "text": "Renamed."},
    ]}
    s = await served(script, agents={"defaults": OFF})
    sid = await opened(s)
    target = s.project / "src" / "app.py"
    target.parent.mkdir()
    target.write_text("print('saved on disk')\n")
    # the editor holds unsaved text: the edit must start from it, not from the disk
    s.client.buffers[str(target)] = "def old_name():\n    return 1\n"
    done = await s.conn.prompt(session_id=sid, prompt=text("rename the function"))
    assert done.stop_reason == "end_turn"
    assert s.client.fs_reads == [str(target)]
    assert s.client.fs_writes == [(str(target), "def new_name():\n    return 1\n")]
    call = s.client.of("tool_call")[0]
    assert (call.tool_call_id, call.kind, call.title) == ("call-e", "edit",
                                                          "Edit: in src/app.py (8 chars)")
    assert call.locations[0].path == str(target)
    diff = call.content[0]
    assert (diff.type, diff.path, diff.old_text, diff.new_text) == (
        "diff", str(target), "old_name", "new_name")
    finished = s.client.of("tool_call_update")[-1]
    assert finished.status == "completed" and finished.content is None  # the diff stays
    assert "Renamed." in s.client.text()


async def test_a_read_asks_the_editor_and_shows_lines_as_the_host_would(served: Any) -> None:
    script = {"responses": [
        {"match": "look", "tool_calls": [{"name": "read", "arguments": {
            "path": "notes.txt", "offset": 2, "limit": 1}}]},
        {"match": "beta", "text": "Line two says beta."},
    ]}
    s = await served(script, agents={"defaults": OFF})
    sid = await opened(s)
    notes = s.project / "notes.txt"
    s.client.buffers[str(notes)] = "alpha\nbeta\ngamma\n"  # never saved
    await s.conn.prompt(session_id=sid, prompt=text("look at line two"))
    assert s.client.fs_reads == [str(notes)]
    call = s.client.of("tool_call")[0]
    assert call.kind == "read" and call.locations[0].line == 2
    assert "Line two says beta." in s.client.text()
    entries = await s.host.history(sid)
    result = next(e for e in entries if e.role == "toolResult")
    assert result.content["content"][0]["text"] == (
        "beta\n\n[Showing lines 2-2 of 3. Use offset=3 to continue.]")


async def test_without_client_fs_the_tools_work_on_the_host(served: Any) -> None:
    script = {"responses": [
        {"match": "note", "tool_calls": [{"name": "write", "arguments": {
            "path": "n.txt", "content": "local\n"}}]},
        {"match": "Successfully wrote", "text": "done"},
    ]}
    s = await served(script, agents={"defaults": OFF})
    sid = await opened(s, fs=False, terminal=False)
    await s.conn.prompt(session_id=sid, prompt=text("note it"))
    assert s.client.fs_writes == []
    assert (s.project / "n.txt").read_text() == "local\n"  # the session's cwd is its workspace


async def test_exec_runs_in_the_editors_terminal(served: Any) -> None:
    script = {"responses": [
        {"match": "count", "tool_calls": [{"id": "call-x", "name": "exec", "arguments": {
            "command": "printf 'one\\ntwo\\n' | wc -l; exit 3"}}]},
        {"match": "exited with code 3", "text": "Two lines, exit 3."},
    ]}
    s = await served(script, agents={"defaults": OFF}, tools={"exec": {"security": "full"}})
    sid = await opened(s)
    done = await s.conn.prompt(session_id=sid, prompt=text("count lines"))
    assert done.stop_reason == "end_turn"
    assert s.client.terminals_made == [
        ("bash", ["-c", "printf 'one\\ntwo\\n' | wc -l; exit 3"], str(s.project))]
    call = s.client.of("tool_call")[0]
    assert call.kind == "execute"
    embedded = [u for u in s.client.of("tool_call_update") if u.content
                and u.content[0].type == "terminal"]
    assert embedded and embedded[0].tool_call_id == "call-x"
    assert s.client.of("tool_call_update")[-1].status == "failed"  # a non-zero exit
    assert "Two lines, exit 3." in s.client.text()
    result = next(e for e in await s.host.history(sid) if e.role == "toolResult")
    assert result.content["content"][0]["text"].startswith("2\n")
    assert result.content["details"]["ranIn"] == "client-terminal"


@pytest.mark.skipif(shutil.which("bwrap") is None, reason="needs bubblewrap")
async def test_a_sandboxed_session_keeps_exec_in_the_sandbox(served: Any) -> None:
    script = {"responses": [
        {"match": "where", "tool_calls": [{"name": "exec", "arguments": {"command": "pwd"}}]},
        {"match": ".", "text": "ran"},
    ]}
    sandboxed = {"model": "scripted/m1", "sandbox": {"mode": "all", "backend": "bwrap",
                                                      "workspaceAccess": "rw"}}
    s = await served(script, agents={"defaults": sandboxed},
                     tools={"exec": {"security": "full"}})
    sid = await opened(s)
    await s.conn.prompt(session_id=sid, prompt=text("where am I"))
    assert s.client.terminals_made == []  # never out of the sandbox into the editor
    result = next(e for e in await s.host.history(sid) if e.role == "toolResult")
    assert result.content["details"]["sandbox"]["sandboxed"] is True


async def test_an_exec_approval_is_a_permission_request_and_its_answer_holds(
        served: Any) -> None:
    script = {"responses": [
        {"match": "clean", "repeat": True, "tool_calls": [{"id": "call-rm", "name": "exec",
                                          "arguments": {"command": "rm -f build.log"}}]},
        {"match": "(?s)not run|refused", "repeat": True, "text": "You said no."},
        {"match": "\\(no output\\)", "text": "Cleaned."},
    ]}
    s = await served(script, agents={"defaults": OFF},
                     tools={"exec": {"security": "allowlist", "ask": "always"}},
                     answer="reject_once")
    sid = await opened(s)
    (s.project / "build.log").write_text("log")
    await s.conn.prompt(session_id=sid, prompt=text("clean up"))
    ((asked_in, call, options),) = s.client.permission_requests
    assert asked_in == sid
    assert (call.tool_call_id, call.kind, call.status) == ("call-rm", "execute", "pending")
    assert call.raw_input == {"command": "rm -f build.log"}
    # ask "always": an answer covers this call only, so no "always allow"
    assert [o.kind for o in options] == ["allow_once", "reject_once"]
    assert (s.project / "build.log").exists()
    assert s.client.of("tool_call_update")[-1].status == "failed"
    assert "You said no." in s.client.text()

    s.client.answer = "allow_once"
    await s.conn.prompt(session_id=sid, prompt=text("clean it now"))
    assert len(s.client.permission_requests) == 2
    assert not (s.project / "build.log").exists()


async def test_always_allow_covers_the_program_for_the_session(served: Any) -> None:
    script = {"responses": [
        {"match": "first", "tool_calls": [{"name": "exec",
                                          "arguments": {"command": "date -u +%Y"}}]},
        {"match": "second", "tool_calls": [{"name": "exec",
                                           "arguments": {"command": "date -u +%m"}}]},
        {"match": "^\\d+$", "repeat": True, "text": "ok"},
    ]}
    s = await served(script, agents={"defaults": OFF},
                     tools={"exec": {"security": "allowlist", "ask": "on-miss"}},
                     answer="allow_always")
    sid = await opened(s, terminal=False)
    await s.conn.prompt(session_id=sid, prompt=text("first"))
    ((_, _, options),) = s.client.permission_requests
    always = next(o for o in options if o.kind == "allow_always")
    assert "date" in always.name
    await s.conn.prompt(session_id=sid, prompt=text("second"))
    assert len(s.client.permission_requests) == 1  # the grant covered `date`


async def test_the_ask_mode_asks_before_a_file_change(served: Any) -> None:
    script = {"responses": [
        {"match": "save", "tool_calls": [{"name": "write", "arguments": {
            "path": "s.txt", "content": "s"}}]},
        {"match": ".", "repeat": True, "text": "done"},
    ]}
    s = await served(script, agents={"defaults": OFF}, answer="allow_once")
    sid = await opened(s)
    await s.conn.set_session_mode(session_id=sid, mode_id="ask")
    await s.conn.prompt(session_id=sid, prompt=text("save"))
    ((_, call, _),) = s.client.permission_requests
    assert call.kind == "edit"
    assert s.client.fs_writes == [(str(s.project / "s.txt"), "s")]


async def test_cancel_stops_the_turn_and_the_prompt_says_cancelled(served: Any) -> None:
    script = {"responses": [
        {"match": "build", "tool_calls": [{"name": "exec", "arguments": {
            "command": "echo started; sleep 60"}}]},
        {"match": "after", "text": "still here"},
    ]}
    s = await served(script, agents={"defaults": OFF}, tools={"exec": {"security": "full"}})
    sid = await opened(s)
    prompt = asyncio.create_task(s.conn.prompt(session_id=sid, prompt=text("build it")))
    await s.client.wait_for(lambda: any(
        u.content and u.content[0].type == "terminal" for u in s.client.of("tool_call_update")))
    started = time.monotonic()
    await s.conn.cancel(session_id=sid)
    done = await asyncio.wait_for(prompt, 20)
    assert done.stop_reason == "cancelled"
    assert time.monotonic() - started < 10  # not the 60 s of the command
    # the session goes on after a cancel
    again = await s.conn.prompt(session_id=sid, prompt=text("after that"))
    assert again.stop_reason == "end_turn"
    assert "still here" in s.client.text()


async def test_cancel_while_waiting_for_the_model(served: Any) -> None:
    script = {"responses": [{"match": "slow", "delay_ms": 30_000, "text": "too late"}]}
    s = await served(script)
    sid = await opened(s)
    prompt = asyncio.create_task(s.conn.prompt(session_id=sid, prompt=text("slow one")))
    async with asyncio.timeout(20):
        while not s.server.requests:  # the model has the request and is slow to answer
            await asyncio.sleep(0.02)
    await s.conn.cancel(session_id=sid)
    done = await asyncio.wait_for(prompt, 20)
    assert done.stop_reason == "cancelled"
    assert "too late" not in s.client.text()


async def test_a_failed_turn_is_an_error_naming_its_type(served: Any) -> None:
    script = {"responses": [{"error": {"status": 400, "message": "bad request body"}}],
              "exhausted": "error"}
    s = await served(script)
    sid = await opened(s)
    with pytest.raises(RequestError) as failed:
        await s.conn.prompt(session_id=sid, prompt=text("hi"))
    assert failed.value.code == -32603
    assert "bad request body" in str(failed.value)
    assert isinstance(failed.value.data, dict) and failed.value.data["type"]


async def test_resource_blocks_become_the_message_and_images_are_refused(served: Any) -> None:
    s = await served({"responses": [{"match": "(?s)README.*hello world", "text": "seen"}]})
    sid = await opened(s)
    done = await s.conn.prompt(session_id=sid, prompt=[
        TextContentBlock(type="text", text="summarize"),
        ResourceContentBlock(type="resource_link", name="README.md",
                             uri="file:///p/README.md"),
        EmbeddedResourceContentBlock(type="resource", resource=TextResourceContents(
            uri="file:///p/a.txt", text="hello world")),
    ])
    assert done.stop_reason == "end_turn" and s.client.text() == "seen"
    entries = await s.host.history(sid)
    assert entries[0].text == ('summarize\n\n[README.md](file:///p/README.md)\n\n'
                               '<context uri="file:///p/a.txt">\nhello world\n</context>')
    with pytest.raises(RequestError) as refused:
        await s.conn.prompt(session_id=sid, prompt=[ImageContentBlock(
            type="image", data="AAAA", mime_type="image/png")])
    assert "image prompt blocks are not supported" in str(refused.value)


async def test_a_prompt_continues_the_clients_trace_from_its_meta(served: Any) -> None:
    """ACP's place for W3C trace context is the request's `_meta` (`traceparent`,
    `tracestate`): the turn's spans join the client's trace."""
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    from clawharness.observability import Telemetry, TelemetrySettings

    exporter = InMemorySpanExporter()
    telemetry = Telemetry(TelemetrySettings(tracing=True),
                          span_processors=[SimpleSpanProcessor(exporter)])
    s = await served({"responses": [{"match": "", "text": "traced", "repeat": True}]},
                     telemetry=telemetry)
    sid = await opened(s)
    trace_id, parent_id = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
    done = await s.conn.prompt(session_id=sid, prompt=text("hello"),
                               traceparent=f"00-{trace_id}-{parent_id}-01")
    assert done.stop_reason == "end_turn"
    await s.conn.prompt(session_id=sid, prompt=text("again"))  # no _meta: a trace of its own
    turns = [sp for sp in exporter.get_finished_spans() if sp.name.startswith("invoke_agent")]
    assert len(turns) == 2
    first, second = sorted(turns, key=lambda sp: sp.start_time or 0)
    assert first.context is not None and first.parent is not None
    assert (f"{first.context.trace_id:032x}", f"{first.parent.span_id:016x}") == (
        trace_id, parent_id)
    assert second.parent is None and second.context is not None
    assert f"{second.context.trace_id:032x}" != trace_id
