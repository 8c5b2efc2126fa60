"""`/metrics` on the gateway: Prometheus text the library's parser reads, counting the
turns the host ran, behind the gateway's token."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
from gateway_support import TOKEN
from prometheus_client.parser import text_string_to_metric_families

from clawharness.gateway.server import GatewayServer
from clawharness.gateway.settings import resolve_settings
from clawharness.host import Host
from clawharness.testing import ScriptedModelServer

API_KEY = "sk-proj-metricsSECRET0123456789abcdefABCDEF"
SCRIPT = {"responses": [
    {"match": "read", "tool_calls": [{"name": "read", "arguments": {"path": "n.txt"}}]},
    {"match": "note", "text": "it says hi"},
    {"match": "hello", "text": "hi"},
]}


def _samples(text: str) -> dict[str, list[tuple[dict[str, str], float]]]:
    out: dict[str, list[tuple[dict[str, str], float]]] = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            out.setdefault(sample.name, []).append((dict(sample.labels), sample.value))
    return out


async def test_metrics_parse_and_count_the_turns_run(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "n.txt").write_text("the note says hi\n")
    async with ScriptedModelServer(SCRIPT) as model:
        config = {
            "models": {"providers": {"scripted": {
                "baseUrl": model.base_url_openai, "api": "openai-responses", "apiKey": API_KEY,
                "models": [{"id": "m"}]}}},
            "agents": {"defaults": {"model": "scripted/m", "workspace": str(workspace)}},
            "tools": {"allow": ["read"]},
            "gateway": {"port": 0, "auth": {"mode": "token", "token": TOKEN}},
        }
        path = tmp_path / "config.json"
        path.write_text(json.dumps(config))
        env = {"CLAWHARNESS_STATE_DIR": str(tmp_path / "state")}
        # a served host records metrics by default (`clawharness serve` says serving=True)
        async with Host.from_config(path, env=env, serving=True) as host:
            assert (await host.run_turn("a", "read the file")).terminal == "ok"
            assert (await host.run_turn("b", "hello")).terminal == "ok"
            server = GatewayServer(host, resolve_settings(host.config, env))
            async with server.running(), httpx.AsyncClient() as http:
                url = f"http://127.0.0.1:{server.port}/metrics"
                assert (await http.get(url)).status_code == 401
                wrong = await http.get(url, headers={"Authorization": "Bearer nope"})
                assert wrong.status_code == 401 and "metrics" not in wrong.text.lower().split()
                reply = await http.get(url, headers={"Authorization": f"Bearer {TOKEN}"})
    assert reply.status_code == 200
    assert reply.headers["content-type"].startswith("text/plain; version=0.0.4")
    text = reply.text
    assert API_KEY not in text and TOKEN not in text
    samples = _samples(text)
    turns = {(labels["runtime"], labels["outcome"]): value
             for labels, value in samples["clawharness_turns_total"]}
    assert turns == {("openclaw", "ok"): 2.0}
    tools = {labels["gen_ai_tool_name"]: value
             for labels, value in samples["clawharness_tool_calls_total"]}
    assert tools == {"read": 1.0}
    tokens = {labels["gen_ai_token_type"]: value
              for labels, value in samples["gen_ai_client_token_usage_count"]}
    assert tokens == {"input": 3.0, "output": 3.0}  # three model requests
    durations = samples["gen_ai_client_operation_duration_seconds_count"]
    assert sum(v for _, v in durations) == 3.0
    assert all(labels["gen_ai_provider_name"] == "scripted" for labels, _ in durations)
    assert [v for _, v in samples["clawharness_turn_duration_seconds_count"]] == [2.0]
    assert sum(v for _, v in samples["clawharness_session_lease_wait_seconds_count"]) == 2.0
    assert sum(v for _, v in samples["clawharness_store_append_duration_seconds_count"]) >= 2.0
    buckets = [labels["le"] for labels, _ in samples["clawharness_turn_duration_seconds_bucket"]]
    assert buckets[-1] == "+Inf" and len(buckets) > 5
