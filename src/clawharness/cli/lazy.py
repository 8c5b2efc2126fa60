"""Command groups loaded when they are used, so `clawharness --help` and one command do
not import every command's dependencies.

The root group knows each command by a `LazyCommand` (its name, the module whose
`register(app)` defines it, and the one-line summary the root's help lists) and imports
the module only when the command is run or its own help is asked for.
`tests/cli/test_lazy_commands.py` holds the table to what the modules define.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from typing import Any, ClassVar

import typer
from typer.core import TyperCommand, TyperGroup

from clawharness.cli.commands import LazyCommand

__all__ = ["LazyCommand", "LazyCommandGroup", "load_commands"]


class _NotLoaded(TyperCommand):
    """Stands in for a command in the root's listing until the command is used."""

    def __init__(self, entry: LazyCommand) -> None:
        super().__init__(name=entry.name, help=entry.summary)
        self.entry = entry


def load_commands(module: str) -> dict[str, Any]:
    """The click commands `module`'s `register(app)` defines, by name."""
    app = typer.Typer(add_completion=False)
    importlib.import_module(module).register(app)
    return dict(typer.main.get_group(app).commands)


class LazyCommandGroup(TyperGroup):
    """A root group whose commands are `LazyCommand`s until they are used.

    Subclasses name their table in `lazy_commands` (in the order the help lists them).
    """

    lazy_commands: ClassVar[tuple[LazyCommand, ...]] = ()

    def __init__(self, **attrs: Any) -> None:
        super().__init__(**attrs)
        eager = dict(self.commands)
        commands: dict[str, Any] = {e.name: _NotLoaded(e) for e in self.lazy_commands}
        commands.update(eager)
        self.commands = commands

    def resolve_command(self, ctx: Any, args: list[str]) -> tuple[str | None, Any, list[str]]:
        if args:
            self.load(args[0])
        return super().resolve_command(ctx, args)

    def load(self, name: str) -> Any:
        """The real command `name` (imported now if it was not), or None if unknown."""
        command = self.commands.get(name)
        if not isinstance(command, _NotLoaded):
            return command
        self._install(load_commands(command.entry.module), command.entry.module)
        loaded = self.commands[name]
        if isinstance(loaded, _NotLoaded):
            raise RuntimeError(f"{command.entry.module}.register() defines no command {name!r}")
        return loaded

    def load_all(self) -> Mapping[str, Any]:
        """Every command, imported (for tests and tools that walk the whole tree)."""
        for name in list(self.commands):
            self.load(name)
        return self.commands

    def _install(self, defined: Mapping[str, Any], module: str) -> None:
        for name, command in defined.items():
            current = self.commands.get(name)
            if isinstance(current, _NotLoaded) and current.entry.module == module:
                self.commands[name] = command

