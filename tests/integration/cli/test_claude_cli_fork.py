"""A session forked onto the real Claude Code CLI (docs/portable-sessions.md, "Fork"):
a conversation held on the built-in runtime (Anthropic Messages against the scripted
server) is forked at a turn with `runtime="claude-cli"`; the fork's first turn runs
`claude -p` and the model request it sends holds the fact from before the fork point
(the recap a fresh Claude session is given), not the turn after it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from claude_cli_rig import requires_claude
from test_claude_cli_portable import _config, _model_requests

from clawharness.host import Host
from clawharness.testing import ScriptedModelServer

pytestmark = [pytest.mark.integration, requires_claude]


async def test_a_built_in_conversation_forked_onto_claude_cli_carries_its_prefix(
        tmp_path: Path) -> None:
    script = {"responses": [
        {"match": "the river is the Tay", "text": "noted: Tay"},
        {"match": "the decoy river is the Nile", "text": "noted: decoy"},
        {"match": "which river", "text": "the Tay"},
    ]}
    async with ScriptedModelServer(script) as server:
        config = _config(tmp_path, server, runtime=None)  # the built-in runtime by default
        env = {"CLAWHARNESS_STATE_DIR": str(tmp_path / "state")}
        async with Host.from_config(config, env=env) as host:
            for text in ("remember: the river is the Tay", "the decoy river is the Nile"):
                turn = await host.run_turn("river", text)
                assert turn.runtime == "openclaw", turn.error
            fork = await host.fork_session("river", at="1", new_key="river-claude",
                                           runtime="claude-cli")
            assert (fork.copied, fork.runtime) == (2, "claude-cli")

            before = len(_model_requests(server))
            turn = await host.run_turn("river-claude", "which river did I name?")
            assert (turn.runtime, turn.terminal, turn.text) == (
                "claude-cli", "ok", "the Tay"), turn.error
            [request] = [r for r in _model_requests(server)[before:] if "which river" in r]
            assert "remember: the river is the Tay" in request and "noted: Tay" in request
            assert "Nile" not in request
            [row] = await host.store.state_list("claude-cli.bindings")
            assert row.value["nativeSessionId"]
            # the source stays on the built-in runtime, untouched
            source = await host.get_session("river")
            assert source.agent_harness_id == "openclaw"
            assert len(await host.history("river")) == 4
            assert json.dumps([e.text for e in await host.history("river-claude")]).count(
                "Tay") >= 2
