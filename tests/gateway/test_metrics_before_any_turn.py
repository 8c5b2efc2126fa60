"""`/metrics` of a real `clawharness serve` that has run no turn yet answers every metric
family the host records (an unlabelled counter or histogram at zero, a labelled family
with no series yet) and the process's own metrics, as a Prometheus scrape expects."""

from __future__ import annotations

import asyncio
import json
import os
import re
import sys
from pathlib import Path

import httpx
from prometheus_client.parser import text_string_to_metric_families

from clawharness.observability.instruments import INSTRUMENTS
from clawharness.observability.prometheus import render_prometheus

TOKEN = "metrics-token-0123456789"


def _prometheus_name(name: str, unit: str) -> str:
    out = re.sub(r"[^a-zA-Z0-9_:]", "_", name)
    return out + "_seconds" if unit == "s" else out


async def test_a_fresh_serve_answers_every_family(tmp_path: Path) -> None:
    config = tmp_path / "config.json"
    config.write_text(json.dumps({
        "models": {"providers": {"local": {"baseUrl": "http://127.0.0.1:9/v1",
                                           "api": "openai-responses", "apiKey": "k",
                                           "models": [{"id": "m"}]}}},
        "agents": {"defaults": {"model": "local/m", "workspace": str(tmp_path / "ws")}},
        "store": {"url": str(tmp_path / "state.db")},
    }))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OTEL_", "CLAWHARNESS_"))}
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "clawharness", "serve", "--config", str(config), "--port", "0",
        "--token", TOKEN, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
        env=env)
    try:
        assert process.stdout is not None
        line = (await asyncio.wait_for(process.stdout.readline(), 120)).decode()
        match = re.search(r"listening ws://([^:\s]+):(\d+)", line)
        assert match, line
        url = f"http://{match.group(1)}:{match.group(2)}/metrics"
        async with httpx.AsyncClient(timeout=30) as http:
            reply = await http.get(url, headers={"Authorization": f"Bearer {TOKEN}"})
    finally:
        process.terminate()
        await asyncio.wait_for(process.wait(), 60)
    assert reply.status_code == 200, reply.text
    families = {f.name: f for f in text_string_to_metric_families(reply.text)}
    for spec in INSTRUMENTS:
        name = _prometheus_name(spec.name, spec.unit)
        family = families.get(name)
        assert family is not None, f"{name} missing from /metrics before any turn"
        assert family.type == {"counter": "counter", "histogram": "histogram",
                               "gauge": "gauge"}[spec.kind], name
        if spec.labelled:
            assert family.samples == [], name  # no series until a point has labels
        else:
            values = {s.name: s.value for s in family.samples if not s.labels.get("le")}
            assert values[f"{name}_count"] == 0 and values[f"{name}_sum"] == 0, name
    assert families["clawharness_turns"].documentation == "Turns run, by runtime and outcome"
    for process_family in ("process_cpu_seconds", "process_resident_memory_bytes",
                           "process_start_time_seconds", "process_open_fds", "python_info",
                           "python_gc_collections"):
        assert process_family in families, process_family
    (cpu,) = families["process_cpu_seconds"].samples
    assert cpu.value > 0


def test_a_host_that_records_no_metrics_answers_only_the_process_metrics() -> None:
    families = {f.name for f in text_string_to_metric_families(render_prometheus(None).decode())}
    assert "process_cpu_seconds" in families
    assert not any(name.startswith(("clawharness_", "gen_ai_")) for name in families)
