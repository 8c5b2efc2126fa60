"""Portable sessions with a real ACP agent (docs/portable-sessions.md): a session
claude-code-acp can load (one the real Claude Code CLI wrote into the agent's config
dir, in the host agent's workspace) is adopted through `session/load`'s replay, and the
next host turn loads it natively; a handoff to an ACP agent is refused, saying why."""

from __future__ import annotations

import asyncio
import json
import subprocess
from pathlib import Path

import pytest
from acp_rig import CLAUDE_ACP, HARD_TIMEOUT, requires_claude_acp
from claude_cli_rig import CLAUDE, isolated, requires_claude

from clawharness.errors import NativeSessionNotFoundError, NativeSessionUnsupportedError
from clawharness.host import Host
from clawharness.testing import ScriptedModelServer

pytestmark = [pytest.mark.integration, requires_claude_acp, requires_claude]


def _claude_env(tmp: Path, server: ScriptedModelServer) -> dict[str, str]:
    return {"ANTHROPIC_BASE_URL": server.url, "ANTHROPIC_API_KEY": "sk-ant-dummy",
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
            "CLAUDE_CONFIG_DIR": str(tmp / "claude-config")}


def _config(tmp: Path, server: ScriptedModelServer) -> Path:
    config = {
        "agents": {"defaults": {"model": "acp/claude", "workspace": str(tmp / "ws")}},
        "plugins": {"entries": {"acp": {"config": {"agents": {"claude": {
            "command": isolated([str(CLAUDE_ACP)], server.url),
            "env": _claude_env(tmp, server)}}}}}},
    }
    path = tmp / "config.json5"
    path.write_text(json.dumps(config))
    return path


def _model_requests(server: ScriptedModelServer) -> list[str]:
    return [json.dumps(r.body) for r in server.requests if r.path.startswith("/v1/messages")
            and "count_tokens" not in r.path]


async def test_an_acp_session_is_adopted_from_its_replay_and_loaded_next_turn(
        tmp_path: Path) -> None:
    script = {"responses": [
        {"match": "the animal is an otter", "text": "otter noted"},
        {"match": "which animal", "text": "it was an otter"},
    ]}
    async with ScriptedModelServer(script) as server:
        workspace = tmp_path / "ws"
        workspace.mkdir()
        (tmp_path / "home").mkdir()
        # a conversation in the agent's Claude Code config dir, for the host's workspace
        env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": str(tmp_path / "home"),
               **_claude_env(tmp_path, server)}
        argv = isolated([str(CLAUDE), "-p", "remember: the animal is an otter",
                         "--output-format", "json", "--model", "claude-opus-5"], server.url)
        done = await asyncio.to_thread(subprocess.run, argv, env=env, cwd=workspace,
                                       capture_output=True, text=True, timeout=HARD_TIMEOUT,
                                       check=False)
        assert done.returncode == 0, done.stderr[-2000:]
        session_id = json.loads(done.stdout.strip().splitlines()[-1])["session_id"]

        state = {"CLAWHARNESS_STATE_DIR": str(tmp_path / "state")}
        async with Host.from_config(_config(tmp_path, server), env=state) as host:
            adopted = await host.adopt_session("acp/claude", session_id, key="otter")
            assert (adopted.harness_id, adopted.appended, adopted.model_ref) == (
                "acp", 2, "acp/claude")
            texts = [(e.role, e.text) for e in await host.history("otter")]
            assert texts == [("user", "remember: the animal is an otter"),
                             ("assistant", "otter noted")]
            again = await host.adopt_session("acp/claude", session_id, key="otter")
            assert (again.appended, again.already) == (0, 2)

            before = len(_model_requests(server))
            turn = await host.run_turn("otter", "which animal was it?")
            assert (turn.runtime, turn.terminal, turn.text) == (
                "acp", "ok", "it was an otter"), turn.error
            assert turn.warnings == ()
            [request] = [r for r in _model_requests(server)[before:] if "which animal" in r]
            assert "remember: the animal is an otter" in request and "otter noted" in request
            assert "[Earlier conversation]" not in request
            [row] = await host.store.state_list("acp.bindings")
            assert row.value["nativeSessionId"] == session_id

            with pytest.raises(NativeSessionNotFoundError, match="has no session"):
                await host.adopt_session("acp/claude", "00000000-0000-4000-8000-000000000000",
                                         key="nothing")
            assert [s.key for s in await host.list_sessions()] == ["agent:main:otter"]
            with pytest.raises(NativeSessionUnsupportedError,
                               match="no request that makes a session holding") as err:
                await host.handoff_session("otter", "acp/claude")
            assert "claude-code or codex" in (err.value.hint or "")


