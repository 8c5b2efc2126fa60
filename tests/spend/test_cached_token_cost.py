"""Cached input tokens are priced once, at the cache-read rate, on every API the built-in
runtime speaks: OpenAI counts them inside its input figure (Responses' `input_tokens`,
Chat Completions' `prompt_tokens`), Anthropic beside it (`cache_read_input_tokens`), and
a turn's usage has them apart from the uncached input either way (docs/budgets.md)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from clawharness.harness.types import ResolvedModel
from clawharness.host import Host
from clawharness.providers import ModelRequest, Usage, transport_for
from clawharness.testing import ScriptedModelServer

#: 1,000 input tokens of which 800 were read from the cache, 100 out
SCRIPT = {"responses": [{"match": ".*", "repeat": True, "text": "ok", "usage": {
    "input_tokens": 1000, "cached_input_tokens": 800, "output_tokens": 100}}]}
APIS = ["openai-responses", "openai-completions", "anthropic-messages"]


def base_url(server: ScriptedModelServer, api: str) -> str:
    return server.url if api == "anthropic-messages" else server.base_url_openai


@pytest.mark.parametrize("api", APIS)
async def test_a_call_reports_cached_input_apart_from_uncached_input(api: str) -> None:
    async with ScriptedModelServer(SCRIPT) as server:
        transport = transport_for(ResolvedModel("t", "m", api=api,
                                                base_url=base_url(server, api)), "key")
        events = [e async for e in transport.stream(ModelRequest(
            "m", None, [{"role": "user", "content": [{"type": "text", "text": "x"}]}]))]
    assert events[-1].usage == Usage(  # type: ignore[union-attr]
        input=200, output=100, cache_read=800, total=1100)


@pytest.mark.parametrize("api", APIS)
async def test_a_turn_prices_cached_input_once_at_the_cache_rate(
        tmp_path: Path, api: str) -> None:
    async with ScriptedModelServer(SCRIPT) as server:
        path = tmp_path / "config.json"
        path.write_text(json.dumps({
            "models": {"providers": {"p": {
                "baseUrl": base_url(server, api), "api": api, "apiKey": "k",
                "cost": {"input": 1.0, "cacheRead": 0.1, "output": 2.0},
                "models": [{"id": "m"}]}}},
            "agents": {"defaults": {"model": "p/m", "workspace": str(tmp_path / "ws")}},
        }))
        async with Host.from_config(path, env={"CLAWHARNESS_STATE_DIR": str(tmp_path)}) as host:
            result = await host.run_turn("s", "hello")
    assert result.terminal == "ok", result.error
    assert result.usage is not None
    assert (result.usage.input, result.usage.cache_read) == (200, 800)
    # 200 uncached at $1/M + 800 cached at $0.1/M + 100 out at $2/M (not 1,000 at $1/M
    # and the 800 again at $0.1/M)
    assert result.cost_usd == pytest.approx(200e-6 + 80e-6 + 200e-6)


async def test_anthropic_cache_writes_are_counted_and_priced_at_their_rate(
        tmp_path: Path) -> None:
    script = {"responses": [{"text": "ok", "usage": {
        "input_tokens": 1000, "cache_write_tokens": 600, "output_tokens": 100}}]}
    async with ScriptedModelServer(script) as server:
        path = tmp_path / "config.json"
        path.write_text(json.dumps({
            "models": {"providers": {"p": {
                "baseUrl": server.url, "api": "anthropic-messages", "apiKey": "k",
                "cost": {"input": 1.0, "cacheWrite": 1.25, "output": 2.0},
                "models": [{"id": "m"}]}}},
            "agents": {"defaults": {"model": "p/m", "workspace": str(tmp_path / "ws")}},
        }))
        async with Host.from_config(path, env={"CLAWHARNESS_STATE_DIR": str(tmp_path)}) as host:
            result = await host.run_turn("s", "hello")
    assert result.usage is not None
    assert (result.usage.input, result.usage.cache_write, result.usage.total) == (400, 600, 1100)
    assert result.cost_usd == pytest.approx(400e-6 + 600 * 1.25e-6 + 200e-6)


@pytest.mark.parametrize("api", ["openai-responses", "openai-completions"])
async def test_reasoning_tokens_are_counted_and_priced_at_a_reasoning_rate(
        tmp_path: Path, api: str) -> None:
    # 100 output tokens of which 60 were reasoning: OpenAI's APIs say so in their details
    script = {"responses": [{"text": "ok", "usage": {
        "input_tokens": 10, "output_tokens": 100, "reasoning_tokens": 60}}]}
    async with ScriptedModelServer(script) as server:
        path = tmp_path / "config.json"
        path.write_text(json.dumps({
            "models": {"providers": {"p": {
                "baseUrl": base_url(server, api), "api": api, "apiKey": "k",
                "cost": {"input": 1.0, "output": 2.0, "reasoning": 10.0},
                "models": [{"id": "m"}]}}},
            "agents": {"defaults": {"model": "p/m", "workspace": str(tmp_path / "ws")}},
        }))
        async with Host.from_config(path, env={"CLAWHARNESS_STATE_DIR": str(tmp_path)}) as host:
            result = await host.run_turn("s", "hello")
    assert result.usage is not None and result.usage.reasoning_tokens == 60
    assert result.cost_usd == pytest.approx(10e-6 + 40 * 2e-6 + 60 * 10e-6)
