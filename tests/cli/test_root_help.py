"""`clawharness --help` drawn without typer (`clawharness.cli.root_help`) is byte for byte
what typer draws from the real command line, at every width, with and without colour;
only the plain root help is answered that way, and without importing typer."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import pytest

from clawharness.cli import root_help

_BY_TYPER = ("import sys; sys.argv = ['clawharness', *sys.argv[1:]]\n"
             "from clawharness.cli.main import main; main()")
_BY_ENTRY = ("import sys; sys.argv = ['clawharness', *sys.argv[1:]]\n"
             "from clawharness.cli.entry import main; main()")


def _run(code: str, flag: str, env: dict[str, str]) -> bytes:
    base = {k: v for k, v in os.environ.items()
            if k not in ("COLUMNS", "LINES", "NO_COLOR", "FORCE_COLOR", "TERMINAL_WIDTH",
                         "GITHUB_ACTIONS", "PY_COLORS", "TERM", "CLICOLOR_FORCE")}
    done = subprocess.run([sys.executable, "-c", code, flag], env={**base, **env},
                          capture_output=True, timeout=120, check=True)
    return done.stdout


@pytest.mark.parametrize("env", [
    {"COLUMNS": "100"},
    {"COLUMNS": "40"},
    {"COLUMNS": "72"},
    {"COLUMNS": "160"},
    {"COLUMNS": "100", "FORCE_COLOR": "1"},
    {"COLUMNS": "60", "FORCE_COLOR": "1", "TERM": "xterm-256color"},
    {"COLUMNS": "100", "NO_COLOR": "1", "FORCE_COLOR": "1"},
    {"TERMINAL_WIDTH": "90"},
], ids=json.dumps)
@pytest.mark.parametrize("flag", ["--help", "-h"])
def test_the_root_help_without_typer_is_typers_own(env: dict[str, str], flag: str) -> None:
    ours = _run(_BY_ENTRY, flag, env)
    theirs = _run(_BY_TYPER, flag, env)
    assert ours == theirs
    plain = re.sub(rb"\x1b\[[0-9;]*m", b"", ours)
    assert b"Usage: clawharness" in plain and b"Commands" in plain


def test_only_the_plain_root_help_is_answered_without_typer(monkeypatch: pytest.MonkeyPatch) -> None:
    assert root_help.answers(["/usr/bin/clawharness", "--help"])
    assert root_help.answers(["clawharness", "-h"])
    assert not root_help.answers(["clawharness"])
    assert not root_help.answers(["clawharness", "agent", "--help"])
    assert not root_help.answers(["clawharness", "--help", "--version"])
    # `python -m clawharness`: click names the program differently, typer draws it
    assert not root_help.answers(["/x/clawharness/__main__.py", "--help"])
    monkeypatch.setenv("TYPER_USE_RICH", "0")
    assert not root_help.answers(["clawharness", "--help"])


def test_the_root_help_imports_no_typer() -> None:
    code = _BY_ENTRY + "\nimport json; print(json.dumps(sorted(sys.modules)))"
    out = _run(code, "--help", {"COLUMNS": "100"}).decode()
    modules = set(json.loads(out.strip().splitlines()[-1]))
    assert "rich.console" in modules
    assert not {m for m in modules if m == "typer" or m.startswith("typer.")}
