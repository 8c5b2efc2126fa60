"""A turn whose model request fails: error status and `error.type` on the turn and its
`chat` span, and the failure counted by outcome."""

from __future__ import annotations

import json
from pathlib import Path

from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import StatusCode

from clawharness.host import Host
from clawharness.observability import Telemetry, TelemetrySettings


async def test_a_failed_model_request_marks_its_spans(tmp_path: Path) -> None:
    config = tmp_path / "config.json"
    config.write_text(json.dumps({
        "models": {"providers": {"s": {"api": "scripted", "models": [
            {"id": "m", "params": {"script": {"responses": [], "exhausted": "error"}}}]}}},
        "agents": {"defaults": {"model": "s/m", "workspace": str(tmp_path / "ws")}},
    }))
    exporter = InMemorySpanExporter()
    telemetry = Telemetry(TelemetrySettings(tracing=True, metrics=True),
                          span_processors=[SimpleSpanProcessor(exporter)])
    async with Host.from_config(config, env={"CLAWHARNESS_STATE_DIR": str(tmp_path)},
                                store_url=str(tmp_path / "s.db"), telemetry=telemetry) as host:
        result = await host.run_turn("f", "hello")
        points = host.metrics_text().decode()
    assert result.terminal == "failed"
    spans = {s.name: s for s in exporter.get_finished_spans()}
    turn, chat = spans["invoke_agent main"], spans["chat m"]
    assert turn.status.status_code is StatusCode.ERROR
    assert turn.attributes["error.type"] == result.error_type
    assert turn.attributes["clawharness.terminal"] == "failed"
    assert spans["harness_attempt openclaw"].status.status_code is StatusCode.ERROR
    assert chat.status.status_code is StatusCode.ERROR and chat.attributes["error.type"]
    assert 'clawharness_turns_total{outcome="failed",runtime="openclaw"} 1.0' in points
