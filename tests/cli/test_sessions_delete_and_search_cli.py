"""`sessions delete` asks on a terminal, refuses without one (unless --yes), and an empty
`transcript search` says so."""

from __future__ import annotations

import os
import pty
import select
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from cli_rig import assert_envelope, invoke, only_json, scripted_config

SCRIPT = {"responses": [{"match": ".", "text": "noted", "repeat": True}]}


@pytest.fixture
def config(tmp_path: Path) -> Iterator[Path]:
    with scripted_config(tmp_path, SCRIPT) as path:
        yield path


def start_session(config: Path, name: str) -> None:
    out = invoke("agent", "--config", str(config), "--session", name, "-m", "remember milk")
    assert out.exit_code == 0, out.output


def session_keys(config: Path) -> list[str]:
    listed = only_json(invoke("sessions", "list", "--config", str(config), "--json"))
    return [s["sessionKey"] for s in listed]


def test_empty_search_says_no_matches_and_json_stays_a_list(config: Path) -> None:
    start_session(config, "work")
    text = invoke("transcript", "search", "zebra", "--config", str(config))
    assert text.exit_code == 0
    assert "no matches" in text.stdout and "zebra" in text.stdout
    assert "┃" not in text.stdout  # no empty table
    assert only_json(invoke("transcript", "search", "zebra", "--config", str(config),
                            "--json")) == []
    hit = invoke("transcript", "search", "milk", "--config", str(config))
    assert "agent:main:work" in hit.stdout and "no matches" not in hit.stdout


def test_delete_without_a_terminal_and_without_yes_refuses_and_keeps_the_session(
        config: Path) -> None:
    start_session(config, "keep")
    text = invoke("sessions", "delete", "keep", "--config", str(config))
    assert text.exit_code == 1
    assert "--yes" in text.stderr and "not a terminal" in text.stderr
    error = assert_envelope(invoke("sessions", "delete", "keep", "--config", str(config),
                                   "--json"), "confirmation_required")
    assert "--yes" in error["hint"]
    assert session_keys(config) == ["agent:main:keep"]


@pytest.mark.parametrize("flag", ["--yes", "-y"])
def test_yes_deletes_without_asking(config: Path, flag: str) -> None:
    start_session(config, "gone")
    out = invoke("sessions", "delete", "gone", "--config", str(config), flag)
    assert out.exit_code == 0, out.output
    assert "deleted agent:main:gone" in out.stdout
    assert session_keys(config) == []


def test_deleting_a_missing_session_is_a_not_found_error(config: Path) -> None:
    assert_envelope(invoke("sessions", "delete", "nope", "--config", str(config), "--yes",
                           "--json"), "session_not_found")


def run_in_terminal(args: list[str], answer: str, *, timeout: float = 60.0) -> tuple[int, str]:
    """Run the CLI on a pseudo-terminal; answer its question once it is asked."""
    master, slave = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "clawharness", *args], stdin=slave,
                            stdout=slave, stderr=slave, close_fds=True,
                            env={**os.environ, "NO_COLOR": "1"})
    os.close(slave)
    seen = b""
    answered = False
    deadline = time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([master], [], [], max(0.0, deadline - time.monotonic()))
            if not ready:
                break
            try:
                chunk = os.read(master, 4096)
            except OSError:  # the child closed the terminal
                break
            if not chunk:
                break
            seen += chunk
            if not answered and b"[y/N]" in seen:
                os.write(master, answer.encode() + b"\n")
                answered = True
        code = proc.wait(timeout=max(1.0, deadline - time.monotonic()))
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        os.close(master)
    return code, seen.decode(errors="replace")


def test_on_a_terminal_delete_asks_and_a_no_keeps_the_session(config: Path) -> None:
    start_session(config, "asked")
    code, screen = run_in_terminal(["sessions", "delete", "asked", "--config", str(config)], "n")
    assert "Delete session agent:main:asked and its transcript?" in screen
    assert code == 1 and "kept agent:main:asked" in screen
    assert session_keys(config) == ["agent:main:asked"]
    code, screen = run_in_terminal(["sessions", "delete", "asked", "--config", str(config)], "y")
    assert code == 0 and "deleted agent:main:asked" in screen
    assert session_keys(config) == []
