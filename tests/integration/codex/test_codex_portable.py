"""Portable sessions with the real Codex (docs/portable-sessions.md): a thread `codex exec`
wrote is adopted and the next host turn resumes it natively through the app-server; a
host session is handed off and `codex exec resume ID ...` continues it."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from codex_rig import CODEX_BIN, MODEL, offline_config

from clawharness.harnesses.codex.config import parse_app_server_config, render_config_toml
from clawharness.host import Host
from clawharness.testing import ScriptedModelServer

pytestmark = [pytest.mark.integration,
              pytest.mark.skipif(not CODEX_BIN.exists(), reason="run scripts/native-runtimes.sh")]

TIMEOUT = 90.0


def user_codex_home(tmp_path: Path, base_url: str) -> Path:
    """The user's own CODEX_HOME: an offline config.toml, as a user would keep one."""
    home = tmp_path / "user-codex"
    home.mkdir()
    config = parse_app_server_config({"appServer": {"config": {
        **offline_config(base_url), "model": MODEL}}})
    (home / "config.toml").write_text(render_config_toml(config))
    return home


def codex_env(home: Path) -> dict[str, str]:
    return {"PATH": "/usr/bin:/bin", "HOME": str(home), "CODEX_HOME": str(home),
            "MOCK_OPENAI_API_KEY": "offline"}


async def codex_exec(home: Path, cwd: Path, *args: str) -> list[dict[str, Any]]:
    """One `codex exec --json` run, as the user would type it; its events."""
    done = await asyncio.to_thread(
        subprocess.run, [str(CODEX_BIN), "exec", "--skip-git-repo-check", "--json", *args],
        env=codex_env(home), cwd=cwd, capture_output=True, text=True, timeout=TIMEOUT,
        check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    return [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]


def host_config(tmp_path: Path, base_url: str, *, model: str) -> Path:
    config = {
        "models": {"providers": {
            "openai": {"agentRuntime": {"id": "codex"}},
            "scripted": {"baseUrl": base_url, "api": "openai-responses", "apiKey": "k",
                         "models": [{"id": "m1"}]}}},
        "agents": {"defaults": {"model": model, "workspace": str(tmp_path / "ws")}},
        "plugins": {"entries": {"codex": {"enabled": True, "config": {"appServer": {
            "command": str(CODEX_BIN), "env": {"MOCK_OPENAI_API_KEY": "offline"},
            "config": offline_config(base_url), "approvalPolicy": "never",
            "sandbox": "workspace-write", "maxProcesses": 1, "idleTimeoutSeconds": 30}}}}},
        "store": {"url": str(tmp_path / "host.db")},
    }
    path = tmp_path / "config.json5"
    path.write_text(json.dumps(config))
    return path


def responses_requests(server: ScriptedModelServer) -> list[str]:
    return [json.dumps(r.body) for r in server.requests if r.path.endswith("/responses")]


async def test_a_thread_codex_wrote_is_adopted_and_resumed_natively(tmp_path: Path) -> None:
    script = {"responses": [
        {"match": "the code word is walrus", "text": "noted: walrus"},
        {"match": "which code word", "text": "it was walrus"},
    ]}
    async with ScriptedModelServer(script) as server:
        home = user_codex_home(tmp_path, server.base_url_openai)
        project = tmp_path / "project"
        project.mkdir()
        events = await codex_exec(home, project, "remember: the code word is walrus")
        [thread] = [e["thread_id"] for e in events if e.get("type") == "thread.started"]
        [rollout] = (home / "sessions").rglob(f"rollout-*-{thread}.jsonl")
        written = rollout.read_bytes()

        config = host_config(tmp_path, server.base_url_openai, model=f"openai/{MODEL}")
        env = {"CLAWHARNESS_STATE_DIR": str(tmp_path / "state"), "CODEX_HOME": str(home)}
        async with Host.from_config(config, env=env) as host:
            adopted = await host.adopt_session("codex", thread, key="walrus")
            assert (adopted.appended, adopted.created, adopted.source) == (2, True, str(rollout))
            assert adopted.model_ref == f"openai/{MODEL}"
            assert [(e.role, e.text) for e in await host.history("walrus")] == [
                ("user", "remember: the code word is walrus"), ("assistant", "noted: walrus")]
            again = await host.adopt_session("codex", str(rollout), key="walrus")
            assert (again.appended, again.already) == (0, 2)

            before = len(responses_requests(server))
            turn = await host.run_turn("walrus", "which code word was it?")
            assert (turn.runtime, turn.terminal, turn.text) == (
                "codex", "ok", "it was walrus"), turn.error
            assert turn.warnings == ()
            [request] = responses_requests(server)[before:]
            # Codex resumed its own thread: the earlier exchange is native history
            assert "remember: the code word is walrus" in request
            assert "noted: walrus" in request
            assert "[Earlier conversation]" not in request
            rows = [r for r in await host.store.state_list("codex.bindings")
                    if r.value.get("threadId")]
            assert [r.value["threadId"] for r in rows] == [thread]
        assert rollout.read_bytes() == written  # the user's own rollout is left alone


async def test_a_host_session_is_handed_off_and_codex_resume_continues_it(
        tmp_path: Path) -> None:
    script = {"responses": [
        {"match": "favourite colour is teal", "text": "noted, teal"},
        {"match": "which colour", "text": "teal, as you said"},
    ]}
    async with ScriptedModelServer(script) as server:
        home = user_codex_home(tmp_path, server.base_url_openai)
        # the host's own runtime: the built-in one on the scripted provider
        config = host_config(tmp_path, server.base_url_openai, model="scripted/m1")
        state = {"CLAWHARNESS_STATE_DIR": str(tmp_path / "state")}
        async with Host.from_config(config, env=state) as host:
            turn = await host.run_turn("teal", "my favourite colour is teal")
            assert (turn.runtime, turn.text) == ("openclaw", "noted, teal"), turn.error

        handed = await asyncio.to_thread(subprocess.run, [
            sys.executable, "-m", "clawharness", "sessions", "handoff", "teal", "--to", "codex",
            "--config", str(config), "--json"],
            env={**codex_env(home), **state}, capture_output=True, text=True, timeout=TIMEOUT,
            check=False)
        assert handed.returncode == 0, handed.stderr
        out = json.loads(handed.stdout)
        thread = out["nativeSessionId"]
        assert out["command"] == ["codex", "resume", thread] and out["env"] == {}
        assert Path(out["location"]).is_relative_to(home / "sessions")

        before = len(responses_requests(server))
        events = await codex_exec(home, Path(out["cwd"]), "resume", thread,
                                  "which colour did I say?")
        assert {"type": "thread.started", "thread_id": thread} in events
        said = [e["item"]["text"] for e in events if e.get("type") == "item.completed"
                and e["item"].get("type") == "agent_message"]
        assert said == ["teal, as you said"]
        [request] = responses_requests(server)[before:]
        assert "my favourite colour is teal" in request and "noted, teal" in request
