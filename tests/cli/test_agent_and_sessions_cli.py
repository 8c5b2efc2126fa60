"""The command line as a script uses it: JSON out, clean errors, non-zero exits."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from cli_rig import scripted_config, write_config
from typer.testing import CliRunner

from clawharness.cli.main import app
from clawharness.testing import ScriptedModelServer

runner = CliRunner()


@pytest.fixture
def config_file(tmp_path: Path) -> Iterator[Path]:
    script = {"responses": [
        {"match": "write", "tool_calls": [{"name": "write", "arguments": {"path": "n.txt", "content": "x"}}]},
        {"match": "Successfully wrote", "text": "wrote it"},
        {"match": "hello", "text": "hello back"},
    ], "exhausted": "text"}
    with scripted_config(tmp_path, script, provider="scripted") as path:
        yield path


def invoke(*args: str) -> Any:
    return runner.invoke(app, list(args), catch_exceptions=False)


def test_agent_json_prints_one_final_object(config_file: Path) -> None:
    out = invoke("agent", "--config", str(config_file), "--session", "cli", "--json", "-m", "hello")
    assert out.exit_code == 0, out.output
    result = json.loads(out.stdout.strip().splitlines()[-1])
    assert result["sessionKey"] == "agent:main:cli"
    assert result["text"] == "hello back"
    assert result["terminal"] == "ok"
    assert result["runtime"] == "openclaw" and result["selectedReason"] == "auto_openclaw"
    assert set(result) >= {"sessionKey", "sessionId", "runtime", "selectedReason", "terminal",
                           "text", "toolCalls", "usage"}


def test_agent_json_reports_tool_calls(config_file: Path) -> None:
    out = invoke("agent", "--config", str(config_file), "--json", "-m", "please write a note")
    result = json.loads(out.stdout.strip().splitlines()[-1])
    [call] = result["toolCalls"]
    assert call == {"name": "write", "id": call["id"], "ok": True} and call["id"]
    assert result["text"] == "wrote it" and result["model"] == "scripted/m"


def test_sessions_list_show_and_search_as_json(config_file: Path) -> None:
    invoke("agent", "--config", str(config_file), "--session", "one", "-m", "hello")
    listed = json.loads(invoke("sessions", "list", "--config", str(config_file), "--json").stdout)
    assert isinstance(listed, list)
    assert [s["sessionKey"] for s in listed] == ["agent:main:one"]
    shown = json.loads(invoke("sessions", "show", "one", "--config", str(config_file), "--json").stdout)
    assert [e["role"] for e in shown["entries"]] == ["user", "assistant"]
    hits = json.loads(invoke("transcript", "search", "hello", "--config", str(config_file), "--json").stdout)
    assert isinstance(hits, list) and hits
    assert all({"sessionKey", "text"} <= set(h) for h in hits)


def test_sessions_reset_and_delete(config_file: Path) -> None:
    invoke("agent", "--config", str(config_file), "--session", "gone", "-m", "hello")
    reset = json.loads(invoke("sessions", "reset", "gone", "--config", str(config_file), "--json").stdout)
    assert reset["sessionKey"] == "agent:main:gone"
    deleted = invoke("sessions", "delete", "gone", "--config", str(config_file), "--json", "--yes")
    assert json.loads(deleted.stdout) == {"deleted": True, "sessionKey": "agent:main:gone"}
    again = invoke("sessions", "delete", "gone", "--config", str(config_file), "--yes")
    assert again.exit_code == 1


def test_unknown_session_is_a_clean_json_error(config_file: Path) -> None:
    out = invoke("sessions", "show", "nope", "--config", str(config_file), "--json")
    assert out.exit_code == 1
    assert json.loads(out.stdout)["error"]["type"] == "session_not_found"


def test_invalid_session_key_is_refused(config_file: Path) -> None:
    out = invoke("agent", "--config", str(config_file), "--session", "agent:Bad:x", "--json", "-m", "hi")
    assert out.exit_code == 1
    assert json.loads(out.stdout)["error"]["type"] == "invalid_session_key"


def test_unknown_provider_in_model_ref_is_a_clean_error(config_file: Path) -> None:
    out = invoke("agent", "--config", str(config_file), "--model", "nope/x", "--json", "-m", "hi")
    assert out.exit_code == 1
    error = json.loads(out.stdout)["error"]
    assert error["type"] == "model_ref_invalid" and "nope" in error["message"]


def test_config_validate_reports_the_key_path(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json5"
    bad.write_text("{ agents: { defaults: { maxSteps: 'many' } } }")
    out = invoke("config", "validate", "--config", str(bad), "--json")
    assert out.exit_code == 1
    report = json.loads(out.stdout)
    assert report["ok"] is False and report["path"] == str(bad)
    [problem] = report["problems"]
    assert problem["keyPath"] == "agents.defaults.maxSteps" and problem["line"] == 1
    good = tmp_path / "good.json5"
    good.write_text("{ agents: { defaults: { model: 'openai/gpt-x' } } }")
    ok = invoke("config", "validate", "--config", str(good), "--json")
    assert ok.exit_code == 0 and json.loads(ok.stdout)["ok"] is True


def test_demo_runs_the_main_job_offline(tmp_path: Path) -> None:
    out = invoke("demo", "--state-dir", str(tmp_path / "demo"))
    assert out.exit_code == 0, out.output
    assert "demo complete" in out.stdout
    assert (tmp_path / "demo" / "workspace" / "notes" / "todo.md").exists()


def test_agent_thinking_is_the_messages_level(tmp_path: Path) -> None:
    server = ScriptedModelServer({"responses": [{"match": "[\\s\\S]", "repeat": True,
                                                 "text": "thought"}]})
    with server.run_in_thread():
        path = write_config(tmp_path, server.base_url_openai, provider="scripted")
        out = invoke("agent", "--config", str(path), "--json", "--thinking", "medium",
                     "-m", "hi")
        assert json.loads(out.stdout)["text"] == "thought"
        assert server.requests[-1].to_json()["body"]["reasoning"] == {"effort": "medium"}
        bad = runner.invoke(app, ["agent", "--config", str(path), "--thinking", "huge",
                                  "-m", "hi"])
        assert bad.exit_code != 0 and "unknown thinking level 'huge'" in bad.output
