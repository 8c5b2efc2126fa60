"""One JSON error shape for every `--json` command: `{"error": {"type", "message", ...}}`
on stdout, one line, non-zero exit; the same error in red text without --json."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import typer
from cli_rig import ENVELOPE_KEYS, assert_envelope, invoke, scripted_config, write_config

from clawharness.cli.common import ErrorReport, fail
from clawharness.cli.lazy import LazyCommandGroup
from clawharness.cli.main import app
from clawharness.errors import ConfigError, ProviderConnectionError, SessionNotFoundError

SCRIPT = {"responses": [{"match": ".", "text": "ok", "repeat": True}]}


@pytest.fixture
def config(tmp_path: Path) -> Iterator[Path]:
    with scripted_config(tmp_path, SCRIPT) as path:
        yield path


def missing(tmp_path: Path) -> str:
    return str(tmp_path / "no-such-config.json5")


def invalid(tmp_path: Path) -> str:
    path = tmp_path / "invalid.json5"
    path.write_text("{ agents: { defaults: { maxSteps: 'many' } } }")
    return str(path)


#: (command argv, error type) per error path; `{missing}`, `{invalid}`, `{config}` and
#: `{unreachable}`, `{unregistered}` are config files made by the test
ERROR_PATHS: list[tuple[tuple[str, ...], str]] = [
    (("agent", "-m", "hi", "--config", "{missing}"), "config_invalid"),
    (("agent", "-m", "hi", "--config", "{config}", "--session", "agent:Bad:x"),
     "invalid_session_key"),
    (("agent", "-m", "hi", "--config", "{config}", "--model", "nope/x"), "model_ref_invalid"),
    (("agent", "-m", "hi", "--config", "{unreachable}"), "provider_unreachable"),
    (("agent", "-m", "hi", "--config", "{unregistered}"), "agent_harness_not_registered"),
    (("sessions", "list", "--config", "{invalid}"), "config_invalid"),
    (("sessions", "show", "nope", "--config", "{config}"), "session_not_found"),
    (("sessions", "reset", "agent:Bad:x", "--config", "{config}"), "invalid_session_key"),
    (("sessions", "delete", "nope", "--config", "{config}", "--yes"), "session_not_found"),
    (("sessions", "adopt", "/nonexistent/s.jsonl", "--from", "claude-code", "--config",
      "{config}"), "native_session_not_found"),
    (("sessions", "adopt", "x", "--from", "opencode", "--config", "{config}"),
     "native_session_unsupported"),
    (("sessions", "handoff", "nope", "--to", "codex", "--config", "{config}"),
     "session_not_found"),
    (("sessions", "fork", "nope", "--config", "{config}"), "session_not_found"),
    (("sessions", "kill", "agent:main:nobody", "--config", "{config}"), "subagent_error"),
    (("sessions", "compact", "nope", "--config", "{config}"), "session_not_found"),
    (("usage", "--config", "{missing}"), "config_invalid"),
    (("transcript", "search", "x", "--config", "{missing}"), "config_invalid"),
    (("status", "--config", "{missing}"), "config_invalid"),
    (("doctor", "--config", "{missing}"), "config_invalid"),
    (("config", "validate", "--config", "{invalid}"), "config_invalid"),
    (("models", "list", "--config", "{invalid}"), "config_invalid"),
    (("config", "get", "agents.nope", "--config", "{config}"), "config_invalid"),
    (("config", "set", "agents.defaults.maxSteps", "many", "--config", "{config}"),
     "config_invalid"),
    (("init", "--offline", "--config", "{config}"), "config_exists"),
    (("mcp", "list", "--config", "{invalid}"), "config_invalid"),
    (("mcp", "show", "nope", "--config", "{config}"), "mcp_server_not_found"),
    (("mcp", "probe", "nope", "--config", "{config}"), "mcp_server_not_found"),
    (("mcp", "tools", "nope", "--config", "{config}"), "mcp_server_not_found"),
    (("worker", "--config", "{config}"), "config_invalid"),  # no cluster named
    (("worker", "--config", "{config}", "--cluster", "temporal://127.0.0.1:9"),
     "cluster_refused"),  # a SQLite store
    (("cluster", "status", "--config", "{config}"), "config_invalid"),  # no cluster named
    (("cluster", "status", "--config", "{config}", "--cluster", "http://127.0.0.1:9"),
     "cluster_error"),
    (("sandbox", "explain", "--config", "{config}", "--agent", "ghost"), "unknown_agent"),
]


def json_commands() -> set[tuple[str, ...]]:
    """Every command of the app that takes --json."""
    found: set[tuple[str, ...]] = set()

    def walk(command: Any, path: tuple[str, ...]) -> None:
        if any("--json" in getattr(p, "opts", ()) for p in getattr(command, "params", ())):
            found.add(path)
        for name, sub in getattr(command, "commands", {}).items():
            walk(sub, (*path, name))

    root = typer.main.get_command(app)
    assert isinstance(root, LazyCommandGroup)
    root.load_all()
    walk(root, ())
    return found


def test_every_json_command_has_its_error_path_tested() -> None:
    tested = {tuple(a for a in argv if not a.startswith("-") and "{" not in a)[:2]
              for argv, _ in ERROR_PATHS}
    commands = json_commands()
    assert commands, "no --json command found"
    untested = {c for c in commands if not any(c == t[:len(c)] for t in tested)}
    assert untested == set()


@pytest.mark.parametrize(("argv", "error_type"), ERROR_PATHS,
                         ids=[" ".join(a[:2]) + f" {t}" for a, t in ERROR_PATHS])
def test_error_path_prints_the_one_envelope(tmp_path: Path, config: Path, argv: tuple[str, ...],
                                            error_type: str) -> None:
    files = {
        "{missing}": missing(tmp_path), "{invalid}": invalid(tmp_path), "{config}": str(config),
        "{unreachable}": str(write_config(tmp_path / "u", "http://127.0.0.1:9/v1")),
        "{unregistered}": str(write_config(
            tmp_path / "r", "http://127.0.0.1:9/v1",
            {"models": {"providers": {"local": {"agentRuntime": {"id": "nosuch"}}}}})),
    }
    args = [files.get(a, a) for a in argv]
    error = assert_envelope(invoke(*args, "--json"), error_type)
    text = invoke(*args)
    assert text.exit_code != 0
    assert not text.stdout.lstrip().startswith("{")
    assert f"error ({error_type})" in text.stderr
    assert error["message"].split(":")[0] in text.stderr


def test_a_failed_turn_keeps_its_result_beside_the_envelope(tmp_path: Path) -> None:
    path = write_config(tmp_path, "http://127.0.0.1:9/v1")
    data = json.loads(invoke("agent", "-m", "hi", "--config", str(path), "--json").stdout)
    assert data["terminal"] == "failed" and data["sessionKey"] == "agent:main:main"
    assert data["error"]["provider"] == "local" and data["error"]["url"].endswith("/v1")


def test_config_errors_carry_file_and_key_path(tmp_path: Path) -> None:
    path = invalid(tmp_path)
    error = assert_envelope(invoke("config", "validate", "--config", path, "--json"),
                            "config_invalid")
    assert error["file"] == path and error["keyPath"] == "agents.defaults.maxSteps"


def capture_json(capsys: pytest.CaptureFixture[str], call: Callable[[], typer.Exit]) -> Any:
    exit_ = call()
    assert isinstance(exit_, typer.Exit) and exit_.exit_code == 1
    return json.loads(capsys.readouterr().out)


def test_fail_is_the_one_shape_for_errors_of_every_kind(
        capsys: pytest.CaptureFixture[str]) -> None:
    config = capture_json(capsys, lambda: fail(
        ConfigError("bad value", path="c.json5", key_path="a.b"), as_json=True))
    assert config == {"error": {"type": "config_invalid", "message": "c.json5 at a.b: bad value",
                                "file": "c.json5", "keyPath": "a.b"}}
    provider = capture_json(capsys, lambda: fail(ProviderConnectionError(
        "down", provider="p", url="http://h/v1", hint="start it"), as_json=True))
    assert provider["error"] == {"type": "provider_unreachable", "message": "down",
                                 "provider": "p", "url": "http://h/v1", "hint": "start it"}
    plain = capture_json(capsys, lambda: fail(SessionNotFoundError("no session x"),
                                              as_json=True))
    assert plain == {"error": {"type": "session_not_found", "message": "no session x"}}
    other = capture_json(capsys, lambda: fail(RuntimeError("boom"), as_json=True))
    assert other == {"error": {"type": "internal_error", "message": "RuntimeError: boom"}}
    extra = capture_json(capsys, lambda: fail(ErrorReport("t", "m"), as_json=True,
                                              extra={"error": "lost", "sessionKey": "k"}))
    assert extra == {"error": {"type": "t", "message": "m"}, "sessionKey": "k"}
    assert set(config["error"]) | set(provider["error"]) <= ENVELOPE_KEYS


def test_text_errors_show_the_hint_and_keep_brackets(capsys: pytest.CaptureFixture[str]) -> None:
    fail(ErrorReport("x", "value [bold]not markup[/bold]", {"hint": "do [this]"}),
         as_json=False)
    err = capsys.readouterr().err
    assert "value [bold]not markup[/bold]" in err and "hint: do [this]" in err
