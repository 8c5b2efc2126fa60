"""A real Codex turn's token counts as the host records them: Codex counts cached input
inside its input figure (as OpenAI does); the turn's usage has it apart, so it is priced
once, at the cache-read rate; its reasoning tokens are counted (docs/budgets.md)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from codex_rig import CODEX_BIN, MODEL, MakeRig, offline_config

from clawharness.attempt.executor import LocalTurnExecutor
from clawharness.errors import BudgetExceededError
from clawharness.host import Host
from clawharness.records import normalize_usage
from clawharness.testing import ScriptedModelServer

pytestmark = [pytest.mark.integration,
              pytest.mark.skipif(not CODEX_BIN.exists(), reason="run scripts/native-runtimes.sh")]


async def test_cached_input_is_counted_apart_from_uncached_input(make_rig: MakeRig) -> None:
    rig = await make_rig({"responses": [{"text": "ok", "usage": {
        "input_tokens": 1000, "cached_input_tokens": 800, "output_tokens": 100,
        "reasoning_tokens": 40}}]})
    attempt = rig.attempt("hello")
    result = await rig.harness.run_attempt(attempt.params)
    assert result.terminal.kind == "ok"
    usage = normalize_usage(result.attempt_usage)
    assert usage is not None
    assert (usage.input, usage.cache_read, usage.output) == (200, 800, 100)
    # the part of the output spent reasoning, for a reasoning price
    assert usage.reasoning_tokens == 40


async def test_a_codex_turn_is_priced_counted_and_held_by_a_turn_budget(tmp_path: Path) -> None:
    # Codex signed in with an API key here; the config's cost prices it (never the table)
    script = {"responses": [{"match": ".*", "repeat": True, "text": "ok", "usage": {
        "input_tokens": 1000, "cached_input_tokens": 800, "output_tokens": 100}}]}
    async with ScriptedModelServer(script) as server:
        config = {
            "models": {"providers": {"openai": {
                "agentRuntime": {"id": "codex"},
                "cost": {"input": 1.0, "cacheRead": 0.1, "output": 2.0}}}},
            "agents": {"defaults": {"model": f"openai/{MODEL}",
                                    "workspace": str(tmp_path / "ws")}},
            "plugins": {"entries": {"codex": {"enabled": True, "config": {"appServer": {
                "command": str(CODEX_BIN), "env": {"MOCK_OPENAI_API_KEY": "offline"},
                "config": offline_config(server.base_url_openai),
                "approvalPolicy": "never", "sandbox": "workspace-write"}}}}},
            "budgets": {"perSession": {"turns": 1}},
        }
        path = tmp_path / "config.json5"
        path.write_text(json.dumps(config))
        async with Host.from_config(path, env={"CLAWHARNESS_STATE_DIR": str(tmp_path)}) as host:
            first = await host.run_turn("codex", "hello")
            assert (first.runtime, first.terminal) == ("codex", "ok"), first.error
            with pytest.raises(BudgetExceededError) as caught:
                await host.run_turn("codex", "again")
            executor = host.executor
            assert isinstance(executor, LocalTurnExecutor)
            await executor.runner.drain()
            (row,) = await host.usage(by="runtime")
    assert caught.value.key_path == "budgets.perSession.turns"
    # 200 uncached at $1/M, 800 cached at $0.1/M, 100 out at $2/M
    assert first.cost_usd == pytest.approx(200e-6 + 80e-6 + 200e-6)
    assert (row.group, row.turns, row.input_tokens, row.cache_read_tokens) == (
        "codex", 1, 200, 800)
