"""A sub-agent on a real ACP agent (docs/portable-sessions.md, "Sub-agents"): a session
on the built-in runtime (Anthropic Messages against the scripted server) spawns a fresh
child with `runtime: "acp/claude"` (claude-code-acp); the child's turn opens an ACP
session whose prompt is the task, and its reply is announced to the parent."""

from __future__ import annotations

from pathlib import Path

import pytest
from acp_rig import requires_claude_acp
from test_acp_fork import _config, _model_requests

from clawharness.host import Host
from clawharness.testing import ScriptedModelServer

pytestmark = [pytest.mark.integration, requires_claude_acp]


async def test_a_built_in_session_spawns_a_child_on_an_acp_agent(tmp_path: Path) -> None:
    script = {"responses": [
        {"match": r"\[Subagent\]", "text": "the ACP helper said Neptune"},
        {"match": "ask the acp helper", "tool_calls": [{"name": "sessions_spawn",
                                                        "arguments": {
            "task": "helper: the planet is Neptune, name it", "runtime": "acp/claude",
            "label": "planet"}}]},
        {"match": '"status": "accepted"', "text": "asked"},
        {"match": "helper: the planet is Neptune", "text": "Neptune"},
    ]}
    async with ScriptedModelServer(script) as server:
        env = {"CLAWHARNESS_STATE_DIR": str(tmp_path / "state")}
        async with Host.from_config(_config(tmp_path, server), env=env) as host:
            turn = await host.run_turn("planet", "ask the acp helper")
            assert (turn.runtime, turn.text) == ("openclaw", "asked"), turn.error
            [child] = await host.subagents.children("agent:main:planet")
            assert (child.model_ref, child.context) == ("acp/claude", "fresh")
            final = await host.subagents.wait(child.child_key, timeout=180)
            assert (final.status, final.result, final.announced) == (
                "ok", "Neptune", True), final.error
            assert (await host.get_session(child.child_key)).agent_harness_id == "acp"
            [row] = await host.store.state_list("acp.bindings")
            assert row.value["nativeSessionId"]
            assert [r for r in _model_requests(server) if "helper: the planet is Neptune" in r
                    and "[Subagent]" not in r and "accepted" not in r]
            history = await host.history("planet")
            assert history[-1].text == "the ACP helper said Neptune"
