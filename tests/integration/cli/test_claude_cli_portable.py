"""Portable sessions with the real Claude Code CLI (docs/portable-sessions.md): a session
the CLI wrote is adopted and its next host turn resumes it natively; a host session is
handed off and `claude --resume ID -p ...` continues it."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from claude_cli_rig import CLAUDE, HARD_TIMEOUT, isolated, requires_claude

from clawharness.errors import NativeSessionBoundError
from clawharness.host import Host
from clawharness.testing import ScriptedModelServer

pytestmark = [pytest.mark.integration, requires_claude]

MODEL = "claude-opus-5"


def _config(tmp: Path, server: ScriptedModelServer, *, runtime: str | None) -> Path:
    models: dict[str, Any] = {}
    if runtime is not None:
        models[f"anthropic/{MODEL}"] = {"agentRuntime": {"id": runtime}}
    config = {
        "models": {"providers": {"anthropic": {"baseUrl": server.url, "apiKey": "sk-ant-x"}}},
        "agents": {"defaults": {"model": f"anthropic/{MODEL}", "workspace": str(tmp / "ws"),
                                "models": models}},
        "plugins": {"entries": {"claude-cli": {"config": {
            "command": isolated([str(CLAUDE)], server.url)}}}},
    }
    path = tmp / "config.json5"
    path.write_text(json.dumps(config))
    return path


def _claude_env(tmp: Path, server: ScriptedModelServer) -> dict[str, str]:
    """The user's own Claude Code: its config dir, its home, the scripted server."""
    (tmp / "home").mkdir(exist_ok=True)
    return {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": str(tmp / "home"),
            "CLAUDE_CONFIG_DIR": str(tmp / "user-claude"),
            "ANTHROPIC_BASE_URL": server.url, "ANTHROPIC_API_KEY": "sk-ant-dummy",
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1"}


async def _claude(server: ScriptedModelServer, env: dict[str, str], cwd: Path,
                  *args: str) -> dict[str, Any]:
    """One `claude -p` run, as the user would type it; its final JSON result."""
    argv = isolated([str(CLAUDE), "-p", *args, "--output-format", "json", "--model", MODEL],
                    server.url)
    done = await asyncio.to_thread(subprocess.run, argv, env=env, cwd=cwd, capture_output=True,
                                   text=True, timeout=HARD_TIMEOUT, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["is_error"] is False, result
    return result


def _model_requests(server: ScriptedModelServer) -> list[str]:
    return [json.dumps(r.body) for r in server.requests
            if r.path.startswith("/v1/messages") and "count_tokens" not in r.path]


async def test_a_session_claude_code_wrote_is_adopted_and_resumed_natively(
        tmp_path: Path) -> None:
    script = {"responses": [
        {"match": "the code word is heron", "text": "noted: heron"},
        {"match": "which code word", "text": "it was heron"},
    ]}
    async with ScriptedModelServer(script) as server:
        project = tmp_path / "project"
        project.mkdir()
        env = _claude_env(tmp_path, server)
        first = await _claude(server, env, project, "remember: the code word is heron")
        session_id = first["session_id"]
        [original] = (tmp_path / "user-claude" / "projects").glob(f"*/{session_id}.jsonl")
        written = original.read_bytes()

        host_env = {"CLAWHARNESS_STATE_DIR": str(tmp_path / "state"),
                    "CLAUDE_CONFIG_DIR": env["CLAUDE_CONFIG_DIR"]}
        config = _config(tmp_path, server, runtime="claude-cli")
        async with Host.from_config(config, env=host_env) as host:
            adopted = await host.adopt_session("claude-code", session_id, key="heron")
            assert (adopted.session_key, adopted.appended, adopted.created) == (
                "agent:main:heron", 2, True)
            assert adopted.source == str(original)
            assert [(e.role, e.text) for e in await host.history("heron")] == [
                ("user", "remember: the code word is heron"), ("assistant", "noted: heron")]
            again = await host.adopt_session("claude-code", str(original), key="heron")
            assert (again.appended, again.already) == (0, 2)
            with pytest.raises(NativeSessionBoundError, match="already adopted by host "
                               "session agent:main:heron"):
                await host.adopt_session("claude-code", session_id, key="elsewhere")

            before = len(_model_requests(server))
            turn = await host.run_turn("heron", "which code word was it?")
            assert (turn.runtime, turn.terminal, turn.text) == (
                "claude-cli", "ok", "it was heron"), turn.error
            assert turn.warnings == ()
            [request] = _model_requests(server)[before:]
            # the resumed native conversation, not a recap of the host transcript
            assert "remember: the code word is heron" in request
            assert "noted: heron" in request
            assert "[Earlier conversation]" not in request
            [row] = await host.store.state_list("claude-cli.bindings")
            assert row.value["nativeSessionId"] == session_id
            assert [(e.role, e.text) for e in await host.history("heron")][2:] == [
                ("user", "which code word was it?"), ("assistant", "it was heron")]
        # the user's own file is left as it was: the host went on in its own copy
        assert original.read_bytes() == written


async def test_a_host_session_is_handed_off_and_claude_resume_continues_it(
        tmp_path: Path) -> None:
    script = {"responses": [
        {"match": "favourite colour is teal", "text": "noted, teal"},
        {"match": "which colour", "text": "teal, as you said"},
        {"match": "anything else", "text": "nothing else was said"},
    ]}
    async with ScriptedModelServer(script) as server:
        env = _claude_env(tmp_path, server)
        state = tmp_path / "state"
        # the host's own runtime (Anthropic Messages against the scripted server)
        config = _config(tmp_path, server, runtime=None)
        async with Host.from_config(config, env={"CLAWHARNESS_STATE_DIR": str(state)}) as host:
            turn = await host.run_turn("teal", "my favourite colour is teal")
            assert (turn.runtime, turn.text) == ("openclaw", "noted, teal"), turn.error

        handed = await asyncio.to_thread(subprocess.run, [
            sys.executable, "-m", "clawharness", "sessions", "handoff", "teal",
            "--to", "claude-code", "--config", str(config), "--json"],
            env={**env, "CLAWHARNESS_STATE_DIR": str(state)}, capture_output=True, text=True,
            timeout=HARD_TIMEOUT, check=False)
        assert handed.returncode == 0, handed.stderr
        out = json.loads(handed.stdout)
        assert out["command"] == ["claude", "--resume", out["nativeSessionId"]]
        assert out["env"] == {}  # the user's own config dir: nothing to set
        assert Path(out["location"]).is_file()
        assert Path(out["location"]).is_relative_to(tmp_path / "user-claude" / "projects")

        before = len(_model_requests(server))
        resumed = await _claude(server, env, Path(out["cwd"]), "which colour did I say?",
                                "--resume", out["nativeSessionId"])
        assert resumed["session_id"] == out["nativeSessionId"]
        assert resumed["result"] == "teal, as you said"
        [request] = _model_requests(server)[before:]
        assert "my favourite colour is teal" in request and "noted, teal" in request

        # and back: what was said in Claude Code joins the host session, which goes on
        # natively in that Claude Code session from now on
        host_env = {"CLAWHARNESS_STATE_DIR": str(state), "CLAUDE_CONFIG_DIR": env[
            "CLAUDE_CONFIG_DIR"]}
        async with Host.from_config(config, env=host_env) as host:
            back = await host.adopt_session("claude-code", out["nativeSessionId"], key="teal")
            assert (back.appended, back.created) == (2, False)
            assert [e.text for e in await host.history("teal")] == [
                "my favourite colour is teal", "noted, teal", "which colour did I say?",
                "teal, as you said"]
            before = len(_model_requests(server))
            turn = await host.run_turn("teal", "anything else?")
            assert (turn.runtime, turn.text) == ("claude-cli", "nothing else was said"), \
                turn.error
            [request] = _model_requests(server)[before:]
            assert "which colour did I say?" in request and "noted, teal" in request
            assert "[Earlier conversation]" not in request
