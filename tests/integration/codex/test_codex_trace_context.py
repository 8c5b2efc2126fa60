"""A traced Codex turn carries its trace into the real app-server's environment
(`TRACEPARENT`, read back from /proc/<pid>/environ)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from codex_rig import CODEX_BIN, MakeRig, app_servers_of
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from test_codex_through_host import host_config

from clawharness.harness.types import ToolCallContext, ToolSpec
from clawharness.host import Host
from clawharness.observability import Telemetry, TelemetrySettings
from clawharness.observability.spans import turn_span
from clawharness.observability.telemetry import reset_telemetry, use_telemetry
from clawharness.testing import ScriptedModelServer

pytestmark = [pytest.mark.integration,
              pytest.mark.skipif(not CODEX_BIN.exists(), reason="run scripts/native-runtimes.sh")]


def _environ(pid: int) -> dict[str, str]:
    with open(f"/proc/{pid}/environ", "rb") as fh:
        raw = fh.read().split(b"\0")
    return dict(item.decode().split("=", 1) for item in raw if b"=" in item)


async def test_the_app_server_gets_the_turns_traceparent(tmp_path: Path) -> None:
    exporter = InMemorySpanExporter()
    telemetry = Telemetry(TelemetrySettings(tracing=True),
                          span_processors=[SimpleSpanProcessor(exporter)])
    script = {"responses": [{"text": "traced hello"}]}
    async with ScriptedModelServer(script) as server:
        path = host_config(tmp_path, server.base_url_openai)
        async with Host.from_config(path, env={"CLAWHARNESS_STATE_DIR": str(tmp_path)},
                                    telemetry=telemetry) as host:
            result = await host.run_turn("traced", "say hello")
            assert (result.runtime, result.text) == ("codex", "traced hello")
            servers = app_servers_of(os.getpid())
            assert len(servers) == 1
            environ = _environ(servers[0])
            spans = {span.name: span for span in exporter.get_finished_spans()}
    turn = spans["invoke_agent main"]
    start = spans["native_process_start codex"]
    assert spans["harness_attempt codex"].parent.span_id == turn.context.span_id
    assert start.context.trace_id == turn.context.trace_id
    version, trace_id, parent_id, flags = environ["TRACEPARENT"].split("-")
    assert version == "00" and int(flags, 16) & 1  # sampled
    assert trace_id == format(turn.context.trace_id, "032x")
    assert parent_id == format(start.context.span_id, "016x")  # the span that started it


async def test_a_host_tool_call_joins_the_trace_of_its_own_turn(make_rig: MakeRig) -> None:
    """The app-server outlives the turn that started it; a later turn's host-tool call
    (handled on the connection's reader task) still lands in the later turn's trace."""

    async def lookup(args: Mapping[str, Any], ctx: ToolCallContext) -> dict[str, Any]:
        return {"content": [{"type": "text", "text": "sunny"}]}

    tool = ToolSpec("weather", "Look up the weather", {
        "type": "object", "properties": {"city": {"type": "string"}}}, lookup)
    rig = await make_rig({"responses": [
        {"text": "hello"},
        {"tool_calls": [{"name": "weather", "arguments": {"city": "Oslo"}}]},
        {"text": "It is sunny."}]})
    exporter = InMemorySpanExporter()
    telemetry = Telemetry(TelemetrySettings(tracing=True, metrics=False),
                          span_processors=[SimpleSpanProcessor(exporter)])
    token = use_telemetry(telemetry)
    try:
        with turn_span("main", "agent:main:s1", "r1"):
            first = await rig.harness.run_attempt(rig.attempt("first", tools=[tool]).params)
        with turn_span("main", "agent:main:s1", "r2") as second_turn:
            second = await rig.harness.run_attempt(
                rig.attempt("weather?", tools=[tool]).params)
    finally:
        reset_telemetry(token)
    assert (first.terminal.kind, second.terminal.kind) == ("ok", "ok")
    tool_span, = [s for s in exporter.get_finished_spans() if s.name == "execute_tool weather"]
    assert tool_span.context.trace_id == second_turn.get_span_context().trace_id
    assert tool_span.parent.span_id == second_turn.get_span_context().span_id
    assert tool_span.attributes["clawharness.tool.outcome"] == "success"
    telemetry.shutdown()
