"""`--version`/`-V`, and `-h` as well as `--help` on every command and group, with flags
shown as flags (no `<bool>` label)."""

from __future__ import annotations

from importlib import metadata
from typing import Any

import pytest
import typer
from cli_rig import invoke

from clawharness.cli.lazy import LazyCommandGroup
from clawharness.cli.main import app


def command_paths() -> list[tuple[str, ...]]:
    """Every group and command of the app, as argv prefixes (the root is `()`)."""
    root = typer.main.get_command(app)
    assert isinstance(root, LazyCommandGroup)
    root.load_all()
    paths: list[tuple[str, ...]] = []

    def walk(command: Any, path: tuple[str, ...]) -> None:
        if getattr(command, "hidden", False):
            return
        paths.append(path)
        for name, sub in getattr(command, "commands", {}).items():
            walk(sub, (*path, name))

    walk(root, ())
    return paths


@pytest.mark.parametrize("flag", ["--version", "-V"])
def test_version_prints_the_installed_version(flag: str) -> None:
    out = invoke(flag)
    assert out.exit_code == 0, out.output
    assert out.stdout.strip() == f"clawharness {metadata.version('clawharness')}"


def test_the_tree_has_the_commands_a_newcomer_reads_about() -> None:
    paths = set(command_paths())
    assert {("agent",), ("status",), ("sessions", "delete"), ("transcript", "search"),
            ("models", "list"), ("config", "validate")} <= paths


@pytest.mark.parametrize("path", command_paths(), ids=lambda p: " ".join(p) or "root")
def test_dash_h_and_dash_dash_help_show_the_same_help(path: tuple[str, ...]) -> None:
    short = invoke(*path, "-h")
    long = invoke(*path, "--help")
    assert short.exit_code == 0 and long.exit_code == 0, short.output
    assert "Usage:" in short.stdout
    assert short.stdout == long.stdout


@pytest.mark.parametrize("path", command_paths(), ids=lambda p: " ".join(p) or "root")
def test_boolean_flags_are_not_labelled_with_a_type(path: tuple[str, ...]) -> None:
    text = invoke(*path, "--help").stdout
    assert "<bool>" not in text
    for line in text.splitlines():
        if "--help" in line:
            # the help flag's row: the flag, its short form, its text, and no value label
            assert "<" not in line.split("--help", 1)[1].split("Show", 1)[0]


def test_options_that_take_values_keep_their_label() -> None:
    text = invoke("agent", "--help").stdout
    assert "--json" in text and "TEXT" in text and "SECONDS" in text
