"""A request's W3C trace context (`traceparent`, `tracestate`) carries into its turn: the
turn's `invoke_agent` span is a child of the caller's span, in the caller's trace, as an
OpenTelemetry-instrumented client expects of the server it calls."""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncIterator
from pathlib import Path

import openai
from http_support import TOKEN, Served, gateway_config
from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from clawharness.gateway.server import GatewayServer
from clawharness.gateway.settings import resolve_settings
from clawharness.host import Host
from clawharness.observability import Telemetry, TelemetrySettings
from clawharness.testing import ScriptedModelServer

HELLO = {"responses": [{"match": "", "text": "Hello from the agent.", "repeat": True}]}
TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736"
PARENT_ID = "00f067aa0ba902b7"
TRACEPARENT = f"00-{TRACE_ID}-{PARENT_ID}-01"


@contextlib.asynccontextmanager
async def traced_gateway(tmp_path: Path,
                         exporter: InMemorySpanExporter) -> AsyncIterator[Served]:
    script = tmp_path / "script.json"
    script.write_text(json.dumps(HELLO))
    async with ScriptedModelServer(script) as model:
        path = tmp_path / "config.json"
        path.write_text(json.dumps(gateway_config(model)))
        env = {"CLAWHARNESS_STATE_DIR": str(tmp_path / "state")}
        telemetry = Telemetry(TelemetrySettings(tracing=True),
                              span_processors=[SimpleSpanProcessor(exporter)])
        async with Host.from_config(path, env=env, telemetry=telemetry) as host:
            server = GatewayServer(host, resolve_settings(host.config, env))
            async with server.running():
                yield Served(f"http://127.0.0.1:{server.port}", host, server, model)


def turn_spans(exporter: InMemorySpanExporter) -> list[ReadableSpan]:
    return [s for s in exporter.get_finished_spans() if s.name.startswith("invoke_agent")]


async def chat(sdk: openai.AsyncOpenAI, headers: dict[str, str] | None = None) -> str | None:
    answer = await sdk.chat.completions.create(
        model="openclaw", messages=[{"role": "user", "content": "hi"}],
        extra_headers=headers or {})
    return answer.choices[0].message.content


def client(served: Served) -> openai.AsyncOpenAI:
    return openai.AsyncOpenAI(base_url=served.v1, api_key=TOKEN, max_retries=0)


async def test_a_chat_completion_turn_continues_the_callers_trace(tmp_path: Path) -> None:
    exporter = InMemorySpanExporter()
    async with traced_gateway(tmp_path, exporter) as served:
        answer = await chat(client(served), {"traceparent": TRACEPARENT,
                                             "tracestate": "vendor=opaque"})
        assert answer == "Hello from the agent."
    [turn] = turn_spans(exporter)
    assert turn.context is not None and turn.parent is not None
    assert f"{turn.context.trace_id:032x}" == TRACE_ID
    assert f"{turn.parent.span_id:016x}" == PARENT_ID
    assert turn.parent.is_remote
    assert turn.context.trace_state.get("vendor") == "opaque"
    # the model call and everything else of the turn sit in the same trace
    spans = exporter.get_finished_spans()
    assert len(spans) > 1
    assert {f"{s.context.trace_id:032x}" for s in spans if s.context is not None} == {TRACE_ID}


async def test_a_responses_turn_continues_the_callers_trace(tmp_path: Path) -> None:
    exporter = InMemorySpanExporter()
    async with traced_gateway(tmp_path, exporter) as served:
        response = await client(served).responses.create(
            model="openclaw", input="hi", extra_headers={"traceparent": TRACEPARENT})
        assert response.output_text == "Hello from the agent."
    [turn] = turn_spans(exporter)
    assert turn.context is not None and turn.parent is not None
    assert f"{turn.context.trace_id:032x}" == TRACE_ID
    assert f"{turn.parent.span_id:016x}" == PARENT_ID


async def test_a_malformed_traceparent_starts_a_trace_of_its_own(tmp_path: Path) -> None:
    exporter = InMemorySpanExporter()
    async with traced_gateway(tmp_path, exporter) as served:
        sdk = client(served)
        upper = await chat(sdk, {"traceparent": f"00-{TRACE_ID.upper()}-{PARENT_ID}-01"})
        assert upper == "Hello from the agent."  # not refused
        await chat(sdk)
    turns = turn_spans(exporter)
    assert len(turns) == 2
    for turn in turns:
        assert turn.parent is None  # a root span: a new trace, not the header's
        assert turn.context is not None and f"{turn.context.trace_id:032x}" != TRACE_ID.lower()
