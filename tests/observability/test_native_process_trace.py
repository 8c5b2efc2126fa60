"""The process supervisor's `spawn`: a `native_process_start` span, the trace context in
the child's environment, and the child counted while it lives."""

from __future__ import annotations

import asyncio

from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from clawharness.observability import Telemetry, TelemetrySettings
from clawharness.observability.processes import live_native_processes
from clawharness.observability.spans import turn_span
from clawharness.observability.telemetry import reset_telemetry, use_telemetry
from clawharness.plugin_sdk.agent_harness_process import spawn


async def test_spawn_passes_traceparent_and_counts_the_child(tmp_path: object) -> None:
    exporter = InMemorySpanExporter()
    telemetry = Telemetry(TelemetrySettings(tracing=True, metrics=False),
                          span_processors=[SimpleSpanProcessor(exporter)])
    token = use_telemetry(telemetry)
    try:
        with turn_span("main", "agent:main:p", "run-1"):
            child = await spawn(["sh", "-c", 'echo "$TRACEPARENT"; read line'],
                                env={"PATH": "/usr/bin:/bin"}, cwd="/")
        try:
            assert child.process.stdout is not None
            line = (await asyncio.wait_for(child.process.stdout.readline(), 10)).decode()
            assert ({"runtime": "sh"}, 1.0) in [(a, v) for v, a in live_native_processes()]
        finally:
            await child.shutdown(grace=1)
    finally:
        reset_telemetry(token)
        telemetry.shutdown()
    assert not [v for v, a in live_native_processes() if a == {"runtime": "sh"}]
    spans = {s.name: s for s in exporter.get_finished_spans()}
    start = spans["native_process_start sh"]
    assert start.parent.span_id == spans["invoke_agent main"].context.span_id
    _, trace_id, parent_id, _ = line.strip().split("-")
    assert trace_id == format(start.context.trace_id, "032x")
    assert parent_id == format(start.context.span_id, "016x")


async def test_untraced_spawn_leaves_the_environment_alone() -> None:
    child = await spawn(["sh", "-c", 'echo "[${TRACEPARENT-unset}]"'],
                        env={"PATH": "/usr/bin:/bin"}, cwd="/")
    try:
        assert child.process.stdout is not None
        line = await asyncio.wait_for(child.process.stdout.readline(), 10)
        assert line.decode().strip() == "[unset]"
    finally:
        await child.shutdown(grace=1)
