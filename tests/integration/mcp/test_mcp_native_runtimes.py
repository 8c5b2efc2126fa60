"""The configured MCP servers reach native runtimes: a Codex turn (the real app-server)
and a Claude CLI turn call the same server-everything tool the built-in runtime does; a
restricted turn fails closed on a harness that cannot enforce the policy."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from mcp_rig import everything_server, needs_everything

from clawharness.host import Host
from clawharness.testing import ScriptedModelServer

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "codex"))
from codex_rig import CODEX_BIN, offline_config

pytestmark = [pytest.mark.integration, needs_everything]

#: a model Codex has no metadata for: it then offers MCP tools directly (for a bundled model
#: that supports tool search it defers them behind `tool_search`, which the scripted
#: model server does not speak)
CODEX_MODEL = "offline-mcp-model"
needs_codex = pytest.mark.skipif(not CODEX_BIN.exists(), reason="run scripts/native-runtimes.sh")


def codex_config(tmp_path: Path, base_url: str, extra: dict[str, Any]) -> Path:
    config = {
        "models": {"providers": {"openai": {"agentRuntime": {"id": "codex"}}}},
        "agents": {"defaults": {"model": f"openai/{CODEX_MODEL}", "workspace": str(tmp_path / "ws")}},
        "plugins": {"entries": {"codex": {"enabled": True, "config": {"appServer": {
            "command": str(CODEX_BIN),
            "env": {"MOCK_OPENAI_API_KEY": "offline"},
            "config": offline_config(base_url),
            "approvalPolicy": "never", "sandbox": "workspace-write",
            "maxProcesses": 1, "idleTimeoutSeconds": 30}}}}},
        "store": {"url": str(tmp_path / "host.db")},
        **extra,
    }
    path = tmp_path / "config.json5"
    path.write_text(json.dumps(config))
    return path


def _tool_names(body: Any) -> list[str]:
    return [t.get("name") for t in body.get("tools") or () if isinstance(t, dict)]


@needs_codex
async def test_a_codex_turn_calls_the_configured_mcp_server(tmp_path: Path) -> None:
    script = {"responses": [
        {"match": "Echo: from codex", "text": "codex heard the echo", "repeat": True},
        {"match": "echo", "tool_calls": [{"name": "echo", "namespace": "mcp__everything",
                                          "arguments": {"message": "from codex"}}]},
    ], "exhausted": "text"}
    async with ScriptedModelServer(script) as server:
        extra = {"mcp": {"servers": {"everything": everything_server()}}}
        path = codex_config(tmp_path, server.base_url_openai, extra)
        async with Host.from_config(path, env={"CLAWHARNESS_STATE_DIR": str(tmp_path)}) as host:
            result = await host.run_turn("codex-mcp", "please echo")
            history = await host.history("codex-mcp")
        names = _tool_names(server.requests[0].body)
        assert "mcp__everything" in names  # the server, as Codex offers it
        assert result.runtime == "codex"
        assert result.text == "codex heard the echo", (result, names)
        assert "Echo: from codex" in json.dumps(server.requests[-1].body)
    results = [e.content for e in history if e.role == "toolResult"]
    assert results and results[0]["toolName"] == "everything__echo"
    assert "Echo: from codex" in json.dumps(results[0]["content"])


@needs_codex
async def test_a_restricted_codex_turn_fails_closed(tmp_path: Path) -> None:
    script = {"responses": [{"text": "never asked"}]}
    async with ScriptedModelServer(script) as server:
        extra = {"mcp": {"servers": {"everything": everything_server()}},
                 "tools": {"deny": ["everything__echo"]}}
        path = codex_config(tmp_path, server.base_url_openai, extra)
        async with Host.from_config(path, env={"CLAWHARNESS_STATE_DIR": str(tmp_path)}) as host:
            result = await host.run_turn("codex-denied", "please echo")
        assert result.terminal == "failed"
        assert "cannot enforce this conversation's tool policy" in (result.error or "")
        assert server.requests == []  # rejected before Codex ran


sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "cli"))
from claude_cli_rig import CLAUDE, isolated  # noqa: E402

needs_claude = pytest.mark.skipif(not CLAUDE.exists(), reason="run scripts/native-runtimes.sh")


@needs_claude
async def test_a_claude_cli_turn_calls_the_configured_mcp_server(tmp_path: Path) -> None:
    script = {"responses": [
        {"match": "Echo: from claude", "text": "claude heard the echo", "repeat": True},
        {"match": "please echo", "tool_calls": [{"name": "mcp__everything__echo",
                                                 "arguments": {"message": "from claude"}}]},
    ], "exhausted": "text"}
    async with ScriptedModelServer(script) as server:
        config = {
            "models": {"providers": {"anthropic": {"baseUrl": server.url}}},
            "agents": {"defaults": {
                "model": "anthropic/claude-opus-5", "workspace": str(tmp_path / "ws"),
                "models": {"anthropic/claude-opus-5": {"agentRuntime": {"id": "claude-cli"}}}}},
            "plugins": {"entries": {"claude-cli": {"config": {
                "command": isolated([str(CLAUDE)], server.url)}}}},
            "mcp": {"servers": {"everything": everything_server()}},
        }
        path = tmp_path / "config.json5"
        path.write_text(json.dumps(config))
        async with Host.from_config(path, env={"CLAWHARNESS_STATE_DIR": str(tmp_path)}) as host:
            result = await host.run_turn("claude-mcp", "please echo")
        turns = [r for r in server.requests if r.path.endswith("/v1/messages")]
        names = _tool_names(turns[0].body)
        assert "mcp__everything__echo" in names, names
        assert result.runtime == "claude-cli"
        assert (result.terminal, result.text) == ("ok", "claude heard the echo"), result
        assert "Echo: from claude" in json.dumps(turns[-1].body)


sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "acp"))
from acp_rig import CLAUDE_ACP  # noqa: E402

needs_claude_acp = pytest.mark.skipif(not CLAUDE_ACP.exists(),
                                      reason="run scripts/native-runtimes.sh")


@needs_claude_acp
async def test_an_acp_agent_gets_the_servers_in_session_new(tmp_path: Path) -> None:
    script = {"responses": [
        {"match": "Echo: from acp", "text": "acp heard the echo", "repeat": True},
        {"match": "please echo", "tool_calls": [{"name": "mcp__everything__echo",
                                                 "arguments": {"message": "from acp"}}]},
    ], "exhausted": "text"}
    async with ScriptedModelServer(script) as server:
        agent = {"command": isolated([str(CLAUDE_ACP)], server.url),
                 "env": {"ANTHROPIC_BASE_URL": server.url, "ANTHROPIC_API_KEY": "sk-ant-dummy",
                         "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1"}}
        config = {
            "agents": {"defaults": {"model": "acp/claude", "workspace": str(tmp_path / "ws")}},
            "plugins": {"entries": {"acp": {"config": {"agents": {"claude": agent}}}}},
            "mcp": {"servers": {"everything": everything_server()}},
        }
        path = tmp_path / "config.json5"
        path.write_text(json.dumps(config))
        async with Host.from_config(path, env={"CLAWHARNESS_STATE_DIR": str(tmp_path)}) as host:
            result = await host.run_turn("acp-mcp", "please echo")
        turns = [r for r in server.requests if r.path.endswith("/v1/messages")]
        assert any("mcp__everything__echo" in _tool_names(t.body) for t in turns)
        assert result.runtime == "acp"
        assert (result.terminal, result.text) == ("ok", "acp heard the echo"), result
        assert any("Echo: from acp" in json.dumps(t.body) for t in turns)
