"""`clawharness config validate`."""

from __future__ import annotations

import typer

from clawharness.cli.common import ConfigOption, JsonOption, console, err_console, fail, print_json
from clawharness.config.loader import load_config
from clawharness.errors import ConfigError

__all__ = ["register"]


def register(app: typer.Typer) -> None:
    group = typer.Typer(help="Inspect and check the config file.", no_args_is_help=True)

    @group.command("validate")
    def validate(config: ConfigOption = None, as_json: JsonOption = False) -> None:
        """Check the config file: exit 0 when valid (unknown keys only warn)."""
        try:
            loaded = load_config(config)
        except ConfigError as exc:
            raise fail(exc, as_json=as_json) from None
        where = str(loaded.path) if loaded.path else None
        if as_json:
            print_json({"ok": True, "path": where, "warnings": loaded.warnings})
            return
        for warning in loaded.warnings:
            err_console.print(f"[yellow]warning[/]: {warning}", highlight=False)
        console.print(f"[green]valid[/] {where or '(no config file: defaults)'}", highlight=False)

    app.add_typer(group, name="config")
