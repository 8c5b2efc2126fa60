"""A traced Codex turn carries its trace into the real app-server's environment
(`TRACEPARENT`, read back from /proc/<pid>/environ)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from codex_rig import CODEX_BIN, app_servers_of
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from test_codex_through_host import host_config

from clawharness.host import Host
from clawharness.observability import Telemetry, TelemetrySettings
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
