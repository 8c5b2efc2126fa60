"""A session key naming an agent the config does not define runs nothing (issue 31):
before, `agent:ghost:x` ran under `agents.defaults` and escaped `agents.entries.main`'s
deny list."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from clawharness.cli.main import app
from clawharness.errors import UnknownAgentError

EXEC_CALL = {"tool_calls": [{"name": "exec", "arguments": {"command": "touch escaped"},
                             "id": "c1"}]}
MAIN_DENIES_EXEC = {"main": {"tools": {"deny": ["exec"]}}}


async def test_a_ghost_agent_cannot_run_what_main_denies(scripted_host: Any,
                                                         tmp_path: Path) -> None:
    host, server = await scripted_host(
        {"responses": [EXEC_CALL, {"text": "done"}]},
        tools={"exec": {"security": "full", "ask": "off"}},
        agents={"defaults": {"model": "scripted/m1", "workspace": str(tmp_path / "workspace")},
                "entries": MAIN_DENIES_EXEC})
    with pytest.raises(UnknownAgentError, match="'ghost'") as caught:
        await host.run_turn("agent:ghost:x", "run it")
    assert caught.value.code == "unknown_agent"
    # nothing ran, nothing was asked of the model, no session was made
    assert server.requests == []
    assert await host.list_sessions() == []
    assert not (tmp_path / "workspace" / "escaped").exists()
    # the configured agent runs, under its own deny list
    result = await host.run_turn("agent:main:x", "run it")
    assert result.tool_calls[0].is_error is True
    assert "agents.entries.main.tools.deny" in (result.tool_calls[0].error or "")
    assert not (tmp_path / "workspace" / "escaped").exists()


async def test_with_no_agent_entries_only_main_runs(scripted_host: Any) -> None:
    host, server = await scripted_host({"responses": [{"text": "hi"}]})
    with pytest.raises(UnknownAgentError):
        await host.run_turn("agent:work:x", "hello")
    assert server.requests == []
    assert (await host.run_turn("agent:main:x", "hello")).text == "hi"


def test_the_cli_refuses_a_ghost_session_with_the_stable_code(tmp_path: Path) -> None:
    from clawharness.testing import ScriptedModelServer

    server = ScriptedModelServer({"responses": [{"text": "must not run"}]})
    with server.run_in_thread():
        path = tmp_path / "config.json5"
        path.write_text(json.dumps({
            "models": {"providers": {"scripted": {
                "baseUrl": server.base_url_openai, "api": "openai-responses", "apiKey": "k",
                "models": [{"id": "m"}]}}},
            "agents": {"defaults": {"model": "scripted/m"}, "entries": MAIN_DENIES_EXEC},
            "store": {"url": str(tmp_path / "state.db")}}))
        runner = CliRunner()
        result = runner.invoke(app, ["agent", "--config", str(path), "--session",
                                     "agent:ghost:x", "-m", "hi", "--json"],
                               catch_exceptions=False)
        assert result.exit_code != 0
        error = json.loads(result.stdout.strip().splitlines()[-1])["error"]
        assert error["type"] == "unknown_agent"
        assert "ghost" in error["message"]
        plain = runner.invoke(app, ["agent", "--config", str(path), "--session",
                                    "agent:ghost:x", "-m", "hi"], catch_exceptions=False)
        assert plain.exit_code != 0
        assert "unknown agent id 'ghost'" in plain.output
        assert "Traceback" not in plain.output
    assert server.requests == []
