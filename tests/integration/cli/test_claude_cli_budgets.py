"""A subscription runtime (the real Claude Code CLI, no host key: unpriced) enters the
host's ledger like the built-in one: its turn's tokens are in the spend rows under its
runtime, and it is held by a turn budget and a token budget (docs/budgets.md)."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from claude_cli_rig import CLAUDE, isolated, requires_claude

from clawharness.attempt.executor import LocalTurnExecutor
from clawharness.errors import BudgetExceededError
from clawharness.host import Host
from clawharness.testing import ScriptedModelServer

pytestmark = [pytest.mark.integration, requires_claude]

SCRIPT = {"responses": [{"match": ".*", "repeat": True, "text": "ok",
                         "usage": {"input_tokens": 1000, "output_tokens": 500}}],
          "exhausted": "text"}


async def spend_written(host: Host) -> None:
    """Wait for the spend rows written off the turns' path."""
    assert isinstance(host.executor, LocalTurnExecutor)
    await host.executor.runner.drain()


def write_config(tmp_path: Path, server: ScriptedModelServer, budgets: dict[str, object]) -> Path:
    config = {
        "models": {"providers": {"anthropic": {"baseUrl": server.url}}},
        "agents": {"defaults": {
            "model": "anthropic/claude-opus-5", "workspace": str(tmp_path / "ws"),
            "models": {"anthropic/claude-opus-5": {"agentRuntime": {"id": "claude-cli"}}}}},
        "plugins": {"entries": {"claude-cli": {"config": {
            "command": isolated([str(CLAUDE)], server.url)}}}},
        "budgets": budgets,
    }
    path = tmp_path / "config.json5"
    path.write_text(json.dumps(config))
    return path


async def test_a_claude_cli_turn_is_counted_and_held_by_a_turn_budget(tmp_path: Path) -> None:
    async with ScriptedModelServer(SCRIPT) as server:
        path = write_config(tmp_path, server, {"perSession": {"turns": 1}})
        async with Host.from_config(path, env={"CLAWHARNESS_STATE_DIR": str(tmp_path)}) as host:
            first = await host.run_turn("claude", "one")
            assert (first.runtime, first.terminal) == ("claude-cli", "ok"), first.error
            assert first.cost_usd is None  # no host key: nobody is billed by the token
            with pytest.raises(BudgetExceededError) as caught:
                await host.run_turn("claude", "two")
            assert caught.value.key_path == "budgets.perSession.turns"
            asked = len(server.requests)
            # its usage is in the same ledger as any turn's, under its runtime
            await spend_written(host)
            (row,) = await host.usage(by="runtime")
            (state,) = await host.budget_states(["session:agent:main:claude"])
        assert row.group == "claude-cli" and row.turns == 1
        assert row.input_tokens >= 1000 and row.output_tokens >= 500
        assert state.spent.turns == 1 and state.spent.tokens >= 1500
        assert len(server.requests) == asked  # the refused turn asked no model


async def test_a_claude_cli_turn_is_held_by_a_daily_token_budget(tmp_path: Path) -> None:
    async with ScriptedModelServer(SCRIPT) as server:
        # each turn reserves its prompt and the model's most output (4,096 tokens) and
        # settles the 1,500 it reports: a few turns fit, then the budget refuses one
        path = write_config(tmp_path, server, {"daily": {"tokens": 8_000}})
        async with Host.from_config(path, env={"CLAWHARNESS_STATE_DIR": str(tmp_path)}) as host:
            day = time.strftime("%Y-%m-%d", time.gmtime())
            ran = 0
            with pytest.raises(BudgetExceededError) as caught:
                for n in range(10):
                    result = await host.run_turn(f"c{n}", "hello")
                    assert result.terminal == "ok", result.error
                    ran += 1
            (state,) = await host.budget_states([f"day:{day}"])
        assert caught.value.key_path == "budgets.daily.tokens"
        assert 1 <= ran < 5 and state.spent.turns == ran
        assert state.spent.tokens <= 8_000
