"""`sessions compact KEY [--focus ...]`: the session's oldest history summarised now, in a
line for people and the compaction's record for scripts; `sessions show` then lists the
summary beside every original entry."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from cli_rig import assert_envelope, invoke, only_json, scripted_config

SCRIPT = {"responses": [
    {"match": "Summarise the conversation", "repeat": True, "text": "The user listed groceries."},
    {"match": ".", "repeat": True, "text": "noted, and " + "more words " * 10},
]}


@pytest.fixture
def config(tmp_path: Path) -> Iterator[Path]:
    with scripted_config(tmp_path, SCRIPT) as path:
        yield path


def talk(config: Path, name: str, turns: int) -> None:
    for n in range(turns):
        out = invoke("agent", "--config", str(config), "--session", name, "-m",
                     f"remember item {n}: " + "milk and bread " * 5)
        assert out.exit_code == 0, out.output


def test_compact_summarises_and_the_transcript_keeps_every_entry(config: Path) -> None:
    talk(config, "shop", 4)
    text = invoke("sessions", "compact", "shop", "--config", str(config), "--focus", "items")
    assert text.exit_code == 0, text.output
    assert "compacted agent:main:shop" in text.stdout
    assert "The user listed groceries." in text.stdout
    shown = only_json(invoke("sessions", "show", "shop", "--config", str(config), "--json"))
    roles = [e["role"] for e in shown["entries"]]
    assert roles.count("user") == 4 and roles.count("assistant") == 4
    assert roles[-1] == "compactionSummary"


def test_compact_json_and_a_session_too_short(config: Path) -> None:
    talk(config, "short", 1)
    data = only_json(invoke("sessions", "compact", "short", "--config", str(config), "--json"))
    assert data["compacted"] is False and data["reason"]
    talk(config, "long", 4)
    data = only_json(invoke("sessions", "compact", "long", "--config", str(config), "--json"))
    assert data["compacted"] is True and data["sessionKey"] == "agent:main:long"
    assert data["summary"] == "The user listed groceries."
    assert data["summarisedEntries"] + data["keptEntries"] == 8 and data["seq"] == 9
    assert data["tokensAfter"] < data["tokensBefore"]


def test_compacting_an_unknown_session_is_the_not_found_envelope(config: Path) -> None:
    assert_envelope(invoke("sessions", "compact", "nobody", "--config", str(config), "--json"),
                    "session_not_found")
