"""`sessions list` order and `transcript search` after reset and delete, as a user runs them.

Real turns through the CLI against the scripted model server, on the SQLite default
(the dual-backend store behaviour is in tests/store/test_store_session_activity.py).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from cli_rig import scripted_config
from typer.testing import CliRunner

from clawharness.cli.main import app

runner = CliRunner()


@pytest.fixture
def config_file(tmp_path: Path) -> Iterator[Path]:
    script = {"responses": [{"match": "milk", "text": "noted: milk", "repeat": True}],
              "exhausted": "text"}
    with scripted_config(tmp_path, script, provider="scripted") as path:
        yield path


def run_json(config: Path, *args: str) -> Any:
    out = runner.invoke(app, [*args, "--config", str(config), "--json"], catch_exceptions=False)
    assert out.exit_code == 0, out.output
    return json.loads(out.stdout.strip().splitlines()[-1])


def turn(config: Path, session: str, text: str) -> None:
    result = run_json(config, "agent", "--session", session, "-m", text)
    assert result["terminal"] == "ok", result


def test_a_second_turn_moves_updated_at_and_lists_the_session_first(config_file: Path) -> None:
    turn(config_file, "work", "remember the milk")
    turn(config_file, "other", "something else")
    before = {s["sessionKey"]: s for s in run_json(config_file, "sessions", "list")}
    assert list(before) == ["agent:main:other", "agent:main:work"]
    turn(config_file, "work", "more milk please")
    after = run_json(config_file, "sessions", "list")
    assert [s["sessionKey"] for s in after] == ["agent:main:work", "agent:main:other"]
    work = after[0]
    assert work["createdAt"] == before["agent:main:work"]["createdAt"]
    assert work["updatedAt"] > before["agent:main:work"]["updatedAt"]
    assert work["updatedAt"] > before["agent:main:other"]["updatedAt"]


def test_after_reset_search_no_longer_finds_the_old_transcript(config_file: Path) -> None:
    turn(config_file, "work", "buy milk")
    assert {h["sessionKey"] for h in run_json(config_file, "transcript", "search", "milk")} == {
        "agent:main:work"}
    run_json(config_file, "sessions", "reset", "work")
    assert run_json(config_file, "sessions", "show", "work")["entries"] == []
    assert run_json(config_file, "transcript", "search", "milk") == []
    turn(config_file, "work", "oat milk now")
    hits = run_json(config_file, "transcript", "search", "milk")
    current = run_json(config_file, "sessions", "show", "work")["sessionId"]
    assert sorted(h["text"] for h in hits) == ["noted: milk", "oat milk now"]
    assert {h["sessionId"] for h in hits} == {current}


def test_after_delete_search_finds_nothing_under_the_key(config_file: Path) -> None:
    turn(config_file, "work", "buy milk")
    turn(config_file, "home", "milk at home")
    assert run_json(config_file, "sessions", "delete", "work", "--yes") == {"deleted": True, "sessionKey": "agent:main:work"}
    hits = run_json(config_file, "transcript", "search", "milk")
    assert hits and {h["sessionKey"] for h in hits} == {"agent:main:home"}
