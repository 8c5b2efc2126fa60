"""Sub-agents with the real Codex app-server (docs/portable-sessions.md, "Sub-agents"):
a built-in session spawns a child with `runtime: "codex"`, whose turn runs on Codex in
the background and is announced back; and a session on Codex calls `sessions_spawn`
itself (a host tool, offered to Codex as a dynamic tool), its built-in child's result
announced to it as the message of a new Codex turn."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from codex_rig import CODEX_BIN, MODEL
from test_codex_portable import host_config, responses_requests

from clawharness.host import Host
from clawharness.testing import ScriptedModelServer

pytestmark = [pytest.mark.integration,
              pytest.mark.skipif(not CODEX_BIN.exists(), reason="run scripts/native-runtimes.sh")]


async def test_a_built_in_session_spawns_a_child_on_codex(tmp_path: Path) -> None:
    script = {"responses": [
        {"match": r"\[Subagent\]", "text": "Codex found 4417"},
        {"match": "^find the vault code", "tool_calls": [{"name": "sessions_spawn",
                                                          "arguments": {
            "task": "child: the vault code is 4417, say it", "runtime": "codex",
            "model": f"openai/{MODEL}", "label": "vault"}}]},
        {"match": '"status": "accepted"', "text": "Codex is on it"},
        {"match": "child: the vault code is 4417", "text": "the code is 4417"},
    ]}
    async with ScriptedModelServer(script) as server:
        config = host_config(tmp_path, server.base_url_openai, model="scripted/m1")
        state = {"CLAWHARNESS_STATE_DIR": str(tmp_path / "state")}
        async with Host.from_config(config, env=state) as host:
            turn = await host.run_turn("vault", "find the vault code")
            assert (turn.runtime, turn.text) == ("openclaw", "Codex is on it"), turn.error
            [child] = await host.subagents.children("agent:main:vault")
            final = await host.subagents.wait(child.child_key, timeout=180)
            assert (final.status, final.result, final.announced) == (
                "ok", "the code is 4417", True), final.error
            assert (await host.get_session(child.child_key)).agent_harness_id == "codex"
            assert [r for r in await host.store.state_list("codex.bindings")
                    if r.value.get("threadId")]
            history = await host.history("vault")
            assert history[-1].text == "Codex found 4417"


async def test_a_session_on_codex_spawns_a_child_and_hears_back(tmp_path: Path) -> None:
    script = {"responses": [
        {"match": r"\[Subagent\]", "text": "the helper said 1066"},
        {"match": "ask a helper for the year", "tool_calls": [{"name": "sessions_spawn",
                                                               "arguments": {
            "task": "helper: the year is 1066, say it", "runtime": "openclaw",
            "model": "scripted/m1"}}]},
        {"match": '"status": "accepted"', "text": "asked a helper"},
        {"match": "^helper: the year is 1066", "text": "the year is 1066"},
    ]}
    async with ScriptedModelServer(script) as server:
        config = host_config(tmp_path, server.base_url_openai, model=f"openai/{MODEL}")
        state = {"CLAWHARNESS_STATE_DIR": str(tmp_path / "state")}
        async with Host.from_config(config, env=state) as host:
            turn = await host.run_turn("history", "ask a helper for the year")
            assert (turn.runtime, turn.text) == ("codex", "asked a helper"), turn.error
            assert [c.tool_name for c in turn.tool_calls] == ["sessions_spawn"]
            [child] = await host.subagents.children("agent:main:history")
            final = await host.subagents.wait(child.child_key, timeout=180)
            assert (final.status, final.result, final.announced) == (
                "ok", "the year is 1066", True), final.error
            assert (await host.get_session(child.child_key)).agent_harness_id == "openclaw"
            # the announcement is a Codex turn of the parent's thread
            [told] = [r for r in responses_requests(server) if "[Subagent]" in r]
            assert "the year is 1066" in told
            history = await host.history("history")
            assert history[-1].text == "the helper said 1066"
            assert json.dumps([e.text for e in history]).count("[Subagent]") == 1
