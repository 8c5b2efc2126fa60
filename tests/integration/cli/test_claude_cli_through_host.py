"""`claude-cli` as the seed configures it: a model-scoped runtime, through `Host`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from claude_cli_rig import CLAUDE, isolated, requires_claude

from clawharness.host import Host
from clawharness.testing import ScriptedModelServer

pytestmark = [pytest.mark.integration, requires_claude]


async def test_model_scoped_claude_cli_runtime_runs_the_turn_without_a_host_key(
        tmp_path: Path) -> None:
    script = {"responses": [{"match": "hello", "repeat": True, "text": "hi from claude code"}],
              "exhausted": "text"}
    async with ScriptedModelServer(script) as server:
        config = {
            "models": {"providers": {"anthropic": {"baseUrl": server.url}}},
            "agents": {"defaults": {
                "model": "anthropic/claude-opus-5", "workspace": str(tmp_path / "ws"),
                "models": {"anthropic/claude-opus-5": {"agentRuntime": {"id": "claude-cli"}}}}},
            "plugins": {"entries": {"claude-cli": {"config": {
                "command": isolated([str(CLAUDE)], server.url)}}}},
        }
        path = tmp_path / "config.json5"
        path.write_text(json.dumps(config))
        # no ANTHROPIC_API_KEY anywhere: the harness owns its authentication
        async with Host.from_config(path, env={"CLAWHARNESS_STATE_DIR": str(tmp_path)}) as host:
            result = await host.run_turn("claude", "hello there")
            assert (result.runtime, result.selected_reason) == ("claude-cli", "forced_plugin")
            assert (result.terminal, result.text) == ("ok", "hi from claude code"), result.error
            texts = [(e.role, e.text) for e in await host.history("claude")]
            assert texts[0] == ("user", "hello there")
            assert ("assistant", "hi from claude code") in texts
            assert len(await host.store.state_list("claude-cli.bindings")) == 1
