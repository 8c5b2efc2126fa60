"""A corrupt store file is a `store_corrupt` error with a clear message and what to do,
never a traceback, for listing sessions and for a turn alike; the file is left as it was
(issue 31)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from clawharness.cli.main import app

runner = CliRunner()


def damage(db: Path, how: str) -> None:
    data = bytearray(db.read_bytes())
    if how == "garbage pages":  # the header intact, every page after the first random
        data[4096:] = os.urandom(len(data) - 4096)
    elif how == "schema damaged":  # the first page's b-tree says it holds no tables
        data[100:108] = b"\x0d\x00\x00\x00\x00\x0f\xff\x00"
    elif how == "not sqlite":
        data[:16] = b"garbage garbage!"
    db.write_bytes(bytes(data))


@pytest.mark.parametrize("how", ["garbage pages", "schema damaged", "not sqlite"])
def test_a_corrupt_store_is_a_clear_store_corrupt_error(tmp_path: Path, how: str) -> None:
    config = tmp_path / "config.json"
    config.write_text(json.dumps({
        "models": {"providers": {"s": {"api": "scripted", "models": [
            {"id": "m", "params": {"script": {"responses": [], "exhausted": "text"}}}]}}},
        "agents": {"defaults": {"model": "s/m", "workspace": str(tmp_path / "ws")}},
        "store": {"url": str(tmp_path / "state.db")}}))
    for i in range(20):
        made = runner.invoke(app, ["agent", "--config", str(config), "--session", f"s{i}",
                                   "-m", "hello " * 100], catch_exceptions=False)
        assert made.exit_code == 0, made.output
    db = tmp_path / "state.db"
    damage(db, how)
    before = db.read_bytes()
    for args in (["sessions", "list", "--config", str(config)],
                 ["agent", "--config", str(config), "--session", "s1", "-m", "again"]):
        as_json = runner.invoke(app, [*args, "--json"], catch_exceptions=False)
        assert as_json.exit_code == 1, as_json.output
        error = json.loads(as_json.stdout.strip().splitlines()[-1])["error"]
        assert error["type"] == "store_corrupt", error
        assert str(db) in error["message"]
        plain = runner.invoke(app, args, catch_exceptions=False)
        assert plain.exit_code == 1
        assert "error (store_corrupt)" in plain.output and "Traceback" not in plain.output
        assert "restore it from a backup" in plain.output
    assert db.read_bytes() == before
