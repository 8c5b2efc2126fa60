"""A turn that waits behind another turn of its session shows the wait as a
`session_lease_wait` span under its own turn, and in the lease-wait metric."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from clawharness.host import Host
from clawharness.observability import Telemetry, TelemetrySettings


async def test_a_queued_turn_records_its_wait(tmp_path: Path) -> None:
    script = {"responses": [{"match": "slow", "text": "first", "delay_ms": 300},
                            {"match": "next", "text": "second"}]}
    config = tmp_path / "config.json"
    config.write_text(json.dumps({
        "models": {"providers": {"s": {"api": "scripted", "models": [
            {"id": "m", "params": {"script": script}}]}}},
        "agents": {"defaults": {"model": "s/m", "workspace": str(tmp_path / "ws")}},
    }))
    exporter = InMemorySpanExporter()
    telemetry = Telemetry(TelemetrySettings(tracing=True, metrics=True),
                          span_processors=[SimpleSpanProcessor(exporter)])
    async with Host.from_config(config, env={"CLAWHARNESS_STATE_DIR": str(tmp_path)},
                                store_url=str(tmp_path / "s.db"), telemetry=telemetry) as host:
        started = asyncio.Event()  # the attempt runs: the first turn holds the writer
        first = asyncio.create_task(host.run_turn("q", "slow",
                                                  on_agent_event=lambda e: started.set()))
        await asyncio.wait_for(started.wait(), 10)
        second = await host.run_turn("q", "next")
        assert ((await first).text, second.text) == ("first", "second")
        points = host.metrics_text().decode()
    spans = exporter.get_finished_spans()
    turns = {s.attributes["clawharness.run.id"]: s for s in spans
             if s.name == "invoke_agent main"}
    waits = [s for s in spans if s.name == "session_lease_wait"]
    assert len(waits) == 1
    wait = waits[0]
    assert wait.attributes["clawharness.lease.wait"] == "process"
    assert wait.parent is not None and wait.parent.span_id == turns[second.run_id].context.span_id
    assert wait.end_time - wait.start_time > 50_000_000  # it waited for the slow turn
    assert "clawharness_session_lease_wait_seconds_count 2.0" in points


async def test_a_turn_behind_another_hosts_lease_waits_in_the_store(tmp_path: Path) -> None:
    """Two hosts on one store file (as two processes would be): the second host's turn
    queues for the store lease the first holds, under its own trace."""
    script = {"responses": [{"match": "slow", "text": "first", "delay_ms": 400},
                            {"match": "next", "text": "second"}]}
    config = tmp_path / "config.json"
    config.write_text(json.dumps({
        "models": {"providers": {"s": {"api": "scripted", "models": [
            {"id": "m", "params": {"script": script}}]}}},
        "agents": {"defaults": {"model": "s/m", "workspace": str(tmp_path / "ws")}},
    }))
    exporters = [InMemorySpanExporter(), InMemorySpanExporter()]
    hosts = [Host.from_config(config, env={"CLAWHARNESS_STATE_DIR": str(tmp_path)},
                              store_url=str(tmp_path / "shared.db"),
                              telemetry=Telemetry(TelemetrySettings(tracing=True),
                                                  span_processors=[SimpleSpanProcessor(e)]))
             for e in exporters]
    async with hosts[0] as first_host, hosts[1] as second_host:
        started = asyncio.Event()  # the attempt runs: the first host holds the store lease
        first = asyncio.create_task(first_host.run_turn(
            "shared", "slow", on_agent_event=lambda e: started.set()))
        await asyncio.wait_for(started.wait(), 10)
        second = await second_host.run_turn("shared", "next")
        assert ((await first).text, second.text) == ("first", "second")
    waits = [s for s in exporters[1].get_finished_spans() if s.name == "session_lease_wait"]
    assert [w.attributes["clawharness.lease.wait"] for w in waits] == ["store"]
    turn = next(s for s in exporters[1].get_finished_spans() if s.name == "invoke_agent main")
    assert waits[0].parent is not None and waits[0].parent.span_id == turn.context.span_id
    assert not [s for s in exporters[0].get_finished_spans() if s.name == "session_lease_wait"]
