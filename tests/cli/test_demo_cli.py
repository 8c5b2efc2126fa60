"""`clawharness demo`: state that lasts when asked for (and says how to look at it), a
temporary one said plainly, and a second run on kept state that starts afresh."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from clawharness.cli.main import app

runner = CliRunner()


def invoke(*args: str) -> Any:
    return runner.invoke(app, list(args), catch_exceptions=False, env={"COLUMNS": "200"})


def test_kept_state_is_found_later_from_the_config_alone(tmp_path: Path,
                                                          monkeypatch: Any) -> None:
    state = tmp_path / "demo"
    out = invoke("demo", "--state-dir", str(state))
    assert out.exit_code == 0, out.output
    config = state / "config.json5"
    assert f"clawharness sessions list --config {config}" in out.stdout
    # a later command knows nothing of the demo's environment: the config says where
    monkeypatch.delenv("CLAWHARNESS_STATE_DIR", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "elsewhere"))
    listed = json.loads(invoke("sessions", "list", "--config", str(config), "--json").stdout)
    assert [s["sessionKey"] for s in listed] == ["agent:main:demo"]
    hits = json.loads(invoke("transcript", "search", "note", "--config", str(config),
                             "--json").stdout)
    assert hits and {h["sessionKey"] for h in hits} == {"agent:main:demo"}
    assert (state / "clawharness.db").is_file()
    assert not (tmp_path / "elsewhere").exists()


def test_a_second_run_on_kept_state_starts_the_demo_session_afresh(tmp_path: Path) -> None:
    state = tmp_path / "demo"
    assert invoke("demo", "--state-dir", str(state)).exit_code == 0
    config = str(state / "config.json5")
    first = json.loads(invoke("sessions", "show", "demo", "--config", config, "--json").stdout)
    again = invoke("demo", "--state-dir", str(state))
    assert again.exit_code == 0, again.output
    assert "reset agent:main:demo" in again.stdout
    second = json.loads(invoke("sessions", "show", "demo", "--config", config, "--json").stdout)
    assert second["sessionId"] != first["sessionId"]
    assert [e["role"] for e in second["entries"]] == [e["role"] for e in first["entries"]]
    hits = json.loads(invoke("transcript", "search", "note", "--config", config, "--json").stdout)
    assert hits and {h["sessionId"] for h in hits} == {second["sessionId"]}


def test_without_a_state_dir_the_demo_says_its_store_was_temporary(tmp_path: Path,
                                                                    monkeypatch: Any) -> None:
    monkeypatch.chdir(tmp_path)
    out = invoke("demo")
    assert out.exit_code == 0, out.output
    assert "temporary and is gone now" in out.stdout
    assert "--state-dir" in out.stdout
    assert list(tmp_path.iterdir()) == []
