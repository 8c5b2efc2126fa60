"""A `claude-cli` session whose Claude conversation is gone: the real Claude Code CLI,
through `Host`, with its config dir replaced between two turns."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from claude_cli_rig import CLAUDE, isolated, requires_claude

from clawharness.host import Host
from clawharness.testing import ScriptedModelServer

pytestmark = [pytest.mark.integration, requires_claude]


def _config(tmp: Path, server: ScriptedModelServer, claude_env: dict[str, str]) -> Path:
    config = {
        "models": {"providers": {"anthropic": {"baseUrl": server.url}}},
        "agents": {"defaults": {
            "model": "anthropic/claude-opus-5", "workspace": str(tmp / "ws"),
            "models": {"anthropic/claude-opus-5": {"agentRuntime": {"id": "claude-cli"}}}}},
        "plugins": {"entries": {"claude-cli": {"config": {
            "command": isolated([str(CLAUDE)], server.url), "env": claude_env}}}},
    }
    path = tmp / "config.json5"
    path.write_text(json.dumps(config))
    return path


async def _bound_session(host: Host) -> Any:
    [row] = await host.store.state_list("claude-cli.bindings")
    return row.value.get("nativeSessionId")


def _model_requests(server: ScriptedModelServer) -> list[str]:
    return [json.dumps(r.body) for r in server.requests
            if r.path.startswith("/v1/messages") and "count_tokens" not in r.path]


async def test_a_replaced_config_dir_continues_on_a_new_conversation_with_the_transcript(
        tmp_path: Path) -> None:
    script = {"responses": [
        {"match": "remember the word pelican", "text": "noted: the pelican"},
        {"match": "which bird was it", "text": "it was the pelican"},
        {"match": "one more thing", "text": "still with you"},
    ]}
    env = {"CLAWHARNESS_STATE_DIR": str(tmp_path / "state")}
    async with ScriptedModelServer(script) as server:
        async with Host.from_config(_config(tmp_path, server, {}), env=env) as host:
            one = await host.run_turn("claude", "remember the word pelican")
            assert (one.terminal, one.text) == ("ok", "noted: the pelican"), one.error
            stale = await _bound_session(host)
        assert isinstance(stale, str)

        # a new CLAUDE_CONFIG_DIR (a new machine, a moved home): the conversation the
        # binding names is not in it, and `claude --resume` says so before any model call
        moved = {"CLAUDE_CONFIG_DIR": str(tmp_path / "new-claude-config")}
        requests_before = len(_model_requests(server))
        async with Host.from_config(_config(tmp_path, server, moved), env=env) as host:
            two = await host.run_turn("claude", "which bird was it?")
            assert (two.terminal, two.text) == ("ok", "it was the pelican"), two.error
            [warning] = two.warnings
            assert stale in warning and "No conversation found" in warning
            assert two.to_json()["warnings"] == [warning]
            fresh = await _bound_session(host)
            assert isinstance(fresh, str) and fresh != stale

            # what the model received on the new conversation: the earlier transcript
            [request] = _model_requests(server)[requests_before:]
            assert "remember the word pelican" in request
            assert "noted: the pelican" in request
            assert "which bird was it?" in request

            # the next turn resumes the new conversation natively: no warning, no recap
            three = await host.run_turn("claude", "one more thing")
            assert (three.terminal, three.text) == ("ok", "still with you"), three.error
            assert three.warnings == ()
            assert await _bound_session(host) == fresh
            last = _model_requests(server)[-1]
            # the recap is native history now (turn two's message), not sent again
            assert last.count("[Earlier conversation]") == 1
            assert "which bird was it?" in last and "it was the pelican" in last

            texts = [(e.role, e.text) for e in await host.history("claude")]
            assert texts == [
                ("user", "remember the word pelican"), ("assistant", "noted: the pelican"),
                ("user", "which bird was it?"), ("assistant", "it was the pelican"),
                ("user", "one more thing"), ("assistant", "still with you")]
