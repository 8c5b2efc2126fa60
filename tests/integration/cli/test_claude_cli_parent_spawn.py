"""A session on the real Claude Code CLI calls `sessions_spawn` itself
(docs/portable-sessions.md, "Sub-agents"): the host offers the tools Claude Code lacks as
an in-process MCP server (`type: "sdk"`, named `clawharness`) for the turn, Claude calls
`mcp__clawharness__sessions_spawn`, the host runs it through the session's tool policy,
and the built-in child's result is announced to the parent as a new Claude turn."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from claude_cli_rig import requires_claude
from test_claude_cli_portable import _config, _model_requests

from clawharness.host import Host
from clawharness.testing import ScriptedModelServer

pytestmark = [pytest.mark.integration, requires_claude]


async def test_a_session_on_claude_cli_spawns_a_child_and_hears_back(tmp_path: Path) -> None:
    script = {"responses": [
        {"match": r"\[Subagent\]", "text": "the helper said 1066"},
        {"match": "ask a helper for the year", "tool_calls": [{
            "name": "mcp__clawharness__sessions_spawn", "arguments": {
                "task": "helper: the year is 1066, say it", "runtime": "openclaw"}}]},
        {"match": '"status": "accepted"', "text": "asked a helper"},
        {"match": "^helper: the year is 1066", "text": "the year is 1066"},
    ]}
    async with ScriptedModelServer(script) as server:
        config = _config(tmp_path, server, runtime="claude-cli")
        env = {"CLAWHARNESS_STATE_DIR": str(tmp_path / "state")}
        async with Host.from_config(config, env=env) as host:
            turn = await host.run_turn("history", "ask a helper for the year")
            # the child may answer while Claude's turn still runs: its announcement is then
            # steered into that turn, whose last reply is the one to it
            assert turn.runtime == "claude-cli" and turn.error is None, turn.error
            assert turn.text in ("asked a helper", "the helper said 1066")
            assert [c.tool_name for c in turn.tool_calls] == ["sessions_spawn"]
            [child] = await host.subagents.children("agent:main:history")
            final = await host.subagents.wait(child.child_key, timeout=180)
            assert (final.status, final.result, final.announced) == (
                "ok", "the year is 1066", True), final.error
            assert (await host.get_session(child.child_key)).agent_harness_id == "openclaw"
            # Claude was offered the host's tool, and the announcement is a Claude turn
            [offered] = [r for r in _model_requests(server) if "ask a helper" in r
                         and "accepted" not in r][:1]
            assert "mcp__clawharness__sessions_spawn" in offered
            [told] = [r for r in _model_requests(server) if "[Subagent]" in r]
            assert "the year is 1066" in told
            history = await host.history("history")
            assert "asked a helper" in [e.text for e in history]
            assert history[-1].text == "the helper said 1066"
            assert json.dumps([e.text for e in history]).count("[Subagent]") == 1
