"""Every `clawharness COMMAND [SUBCOMMAND]` the docs show (in code), and every inline
`GROUP SUBCOMMAND` of a command group (`config get`), is a real command, so a newcomer who
copies one never meets "No such command" (`config show` was one)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import typer

from clawharness.cli.main import app

ROOT = Path(__file__).resolve().parents[2]
INLINE = re.compile(r"`([a-z][a-z0-9-]*)[ ]+([a-z][a-z0-9-]*)")
CODE = re.compile(r"```.*?```|`[^`\n]+`", re.S)
INVOCATION = re.compile(r"(?<![\w./\"-])clawharness[ ]+([a-z][a-z0-9-]*)(?:[ ]+([a-z][a-z0-9-]*))?")


def _commands() -> dict[str, Any]:
    """Every command by name, each group with its own (lazy command modules loaded)."""
    root: Any = typer.main.get_command(app)
    return dict(root.load_all())


def _documented(groups: set[str]) -> list[tuple[str, str, str | None]]:
    found = []
    for path in sorted([*ROOT.glob("docs/*.md"), ROOT / "README.md"]):
        for code in CODE.findall(path.read_text()):
            for match in INVOCATION.finditer(code):
                found.append((path.name, match.group(1), match.group(2)))
            inline = INLINE.match(code)
            # a short span (`config get KEYPATH`), not a quoted message that starts so
            if inline is not None and inline.group(1) in groups and len(code.split()) <= 4:
                found.append((path.name, inline.group(1), inline.group(2)))
    return found


def test_every_documented_command_exists() -> None:
    commands = _commands()
    groups = {name for name, command in commands.items()
              if isinstance(getattr(command, "commands", None), dict) and command.commands}
    assert {"config", "sessions", "mcp"} <= groups
    wrong = []
    documented = _documented(groups)
    assert len(documented) > 50  # the docs show many commands; the scan finds them
    for doc, name, sub in documented:
        command = commands.get(name)
        if command is None:
            wrong.append(f"{doc}: clawharness {name}")
        elif sub is not None and isinstance(getattr(command, "commands", None), dict) \
                and sub not in command.commands:
            wrong.append(f"{doc}: clawharness {name} {sub}")
    assert wrong == []
