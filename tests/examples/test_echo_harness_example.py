"""The example harness in examples/echo-harness, as a third party would use it: installed
as its own distribution, found through its entry point, driven by `clawharness agent`,
its reply in the transcript, and its binding gone after `sessions reset`."""

from __future__ import annotations

import asyncio
import importlib.metadata
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from clawharness.store.sqlite import SqliteStore

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "echo-harness"


def test_the_example_is_installed_from_this_checkout() -> None:
    try:
        dist = importlib.metadata.distribution("clawharness-echo-harness")
    except importlib.metadata.PackageNotFoundError:
        pytest.fail("examples/echo-harness is not installed; run scripts/setup.sh "
                    "(it runs pip install -e examples/echo-harness)")
    points = {ep.name: ep.value for ep in dist.entry_points if ep.group == "clawharness.plugins"}
    assert points == {"echo": "echo_harness.plugin:entry"}
    import echo_harness

    assert Path(echo_harness.__file__).resolve().is_relative_to(EXAMPLE)


def test_the_example_imports_only_the_sdk() -> None:
    import ast

    for path in (EXAMPLE / "src").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                module = node.module
                if module.startswith("clawharness"):
                    assert module.startswith("clawharness.plugin_sdk"), f"{path}: {module}"


class Cli:
    def __init__(self, tmp: Path) -> None:
        self.state = tmp / "state"
        self.state.mkdir()
        self.config = tmp / "config.json"
        self.config.write_text(json.dumps({"agents": {"defaults": {
            "model": "echo/echo-1", "workspace": str(tmp / "workspace")}}}))
        self.env = {**os.environ, "CLAWHARNESS_STATE_DIR": str(self.state),
                    "CLAWHARNESS_CONFIG": str(self.config)}

    def run(self, *args: str) -> Any:
        done = subprocess.run([sys.executable, "-m", "clawharness", *args, "--json"],
                              capture_output=True, text=True, env=self.env, timeout=120)
        assert done.returncode == 0, done.stderr or done.stdout
        return json.loads(done.stdout)

    def bindings(self) -> list[Any]:
        async def read() -> list[Any]:
            store = SqliteStore(self.state / "clawharness.db")
            await store.open()
            try:
                return list(await store.state_list("echo.bindings"))
            finally:
                await store.close()

        return asyncio.run(read())


def test_a_turn_through_the_cli_runs_on_the_example_and_reset_clears_its_binding(
        tmp_path: Path) -> None:
    cli = Cli(tmp_path)
    first = cli.run("agent", "-m", "hello", "--session", "demo")
    assert (first["runtime"], first["selectedReason"], first["terminal"]) == (
        "echo", "auto_plugin", "ok")
    assert first["text"].startswith("echo: hello (turn 1 of native session ")
    native = first["text"].rsplit(" ", 1)[1].rstrip(")")

    second = cli.run("agent", "-m", "again", "--session", "demo")
    assert second["text"] == f"echo: again (turn 2 of native session {native})"

    shown = cli.run("sessions", "show", "demo")
    assert [(e["role"], e["text"]) for e in shown["entries"]] == [
        ("user", "hello"), ("assistant", first["text"]),
        ("user", "again"), ("assistant", second["text"])]
    [row] = cli.bindings()
    assert row.key == "main:agent:main:demo" and row.value["nativeSessionId"] == native

    cli.run("sessions", "reset", "demo")
    assert cli.bindings() == []
    third = cli.run("agent", "-m", "fresh", "--session", "demo")
    assert "(turn 1 of native session " in third["text"] and native not in third["text"]
