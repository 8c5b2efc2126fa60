"""A sub-agent on the real Claude Code CLI (docs/portable-sessions.md, "Sub-agents"): a
session on the built-in runtime (Anthropic Messages against the scripted server) calls
`sessions_spawn` with `runtime: "claude-cli"` and `context: "fork"`; the child's turn
runs `claude -p` in the background, the model request Claude sends holds the parent's
fact from before the spawn (the fork's recap) and the task, and the child's reply is
announced to the parent, whose next turn (built-in again) reads it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from claude_cli_rig import requires_claude
from test_claude_cli_portable import _config, _model_requests

from clawharness.host import Host
from clawharness.testing import ScriptedModelServer

pytestmark = [pytest.mark.integration, requires_claude]


async def test_a_forked_child_on_claude_cli_is_spawned_and_announced(tmp_path: Path) -> None:
    script = {"responses": [
        {"match": r"\[Subagent\]", "text": "Claude says: the Tay"},
        {"match": "the river is the Tay", "text": "noted: Tay"},
        {"match": "ask claude about it", "tool_calls": [{"name": "sessions_spawn", "arguments": {
            "task": "which river did I name?", "context": "fork", "runtime": "claude-cli",
            "label": "river"}}]},
        {"match": '"status": "accepted"', "text": "asked Claude"},
        {"match": "which river did I name", "text": "the Tay"},
    ]}
    async with ScriptedModelServer(script) as server:
        config = _config(tmp_path, server, runtime=None)  # the parent: built-in
        env = {"CLAWHARNESS_STATE_DIR": str(tmp_path / "state")}
        async with Host.from_config(config, env=env) as host:
            turn = await host.run_turn("river", "remember: the river is the Tay")
            assert turn.runtime == "openclaw", turn.error
            turn = await host.run_turn("river", "ask claude about it")
            assert (turn.runtime, turn.text) == ("openclaw", "asked Claude"), turn.error
            [child] = await host.subagents.children("agent:main:river")
            assert (child.runtime, child.context, child.depth) == ("claude-cli", "fork", 1)

            final = await host.subagents.wait(child.child_key, timeout=180)
            assert (final.status, final.result, final.announced) == ("ok", "the Tay", True), (
                final.error)
            record = await host.get_session(child.child_key)
            assert record.agent_harness_id == "claude-cli"  # the child ran on Claude Code
            [request] = [r for r in _model_requests(server) if "which river did I name" in r
                         and "[Subagent]" not in r and "accepted" not in r]
            assert "remember: the river is the Tay" in request and "noted: Tay" in request
            [binding] = await host.store.state_list("claude-cli.bindings")
            assert binding.value["nativeSessionId"]

            history = await host.history("river")
            [told] = [e.text for e in history if e.role == "user" and "[Subagent]" in e.text]
            assert '"river" completed' in told and "the Tay" in told
            assert history[-1].text == "Claude says: the Tay"
            assert json.dumps([e.text for e in await host.history(child.child_key)]).count(
                "Tay") >= 2
