"""A session forked onto a real ACP agent (docs/portable-sessions.md, "Fork"):
a conversation held on the built-in runtime (Anthropic Messages against the scripted
server) is forked at a turn with `runtime="acp/claude"` (claude-code-acp); the fork's
first turn opens a new ACP session whose first prompt carries the host transcript, and
the model request the agent sends holds the fact from before the fork point, not the
turn after it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from acp_rig import CLAUDE_ACP, requires_claude_acp
from claude_cli_rig import isolated

from clawharness.host import Host
from clawharness.testing import ScriptedModelServer

pytestmark = [pytest.mark.integration, requires_claude_acp]


def _config(tmp: Path, server: ScriptedModelServer) -> Path:
    env = {"ANTHROPIC_BASE_URL": server.url, "ANTHROPIC_API_KEY": "sk-ant-dummy",
           "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
           "CLAUDE_CONFIG_DIR": str(tmp / "claude-config")}
    config = {
        "models": {"providers": {"anthropic": {"baseUrl": server.url, "apiKey": "sk-ant-x"}}},
        "agents": {"defaults": {"model": "anthropic/claude-opus-5",
                                "workspace": str(tmp / "ws")}},
        "plugins": {"entries": {"acp": {"config": {"agents": {"claude": {
            "command": isolated([str(CLAUDE_ACP)], server.url), "env": env}}}}}},
    }
    path = tmp / "config.json5"
    path.write_text(json.dumps(config))
    return path


def _model_requests(server: ScriptedModelServer) -> list[str]:
    return [json.dumps(r.body) for r in server.requests if r.path.startswith("/v1/messages")
            and "count_tokens" not in r.path]


async def test_a_built_in_conversation_forked_onto_an_acp_agent_carries_its_prefix(
        tmp_path: Path) -> None:
    script = {"responses": [
        {"match": "the planet is Neptune", "text": "noted: Neptune"},
        {"match": "the decoy planet is Mars", "text": "noted: decoy"},
        {"match": "which planet", "text": "Neptune"},
    ]}
    async with ScriptedModelServer(script) as server:
        env = {"CLAWHARNESS_STATE_DIR": str(tmp_path / "state")}
        async with Host.from_config(_config(tmp_path, server), env=env) as host:
            for text in ("remember: the planet is Neptune", "the decoy planet is Mars"):
                turn = await host.run_turn("planet", text)
                assert turn.runtime == "openclaw", turn.error
            fork = await host.fork_session("planet", at="1", new_key="planet-acp",
                                           runtime="acp/claude")
            assert (fork.copied, fork.model_ref, fork.runtime) == (2, "acp/claude", None)

            before = len(_model_requests(server))
            turn = await host.run_turn("planet-acp", "which planet did I name?")
            assert (turn.runtime, turn.terminal, turn.text) == (
                "acp", "ok", "Neptune"), turn.error
            [request] = [r for r in _model_requests(server)[before:] if "which planet" in r]
            assert "remember: the planet is Neptune" in request
            assert "noted: Neptune" in request
            assert "Mars" not in request
            [row] = await host.store.state_list("acp.bindings")
            assert row.value["nativeSessionId"]
