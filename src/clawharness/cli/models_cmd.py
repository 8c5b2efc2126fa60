"""`clawharness models list`: the configured models, their roles and effective runtimes."""

from __future__ import annotations

from typing import Annotated

import typer

from clawharness.cli.common import (
    ConfigOption,
    JsonOption,
    console,
    err_console,
    new_table,
    print_json,
    run_async,
)
from clawharness.host import Host
from clawharness.models.catalog import ModelCatalog

__all__ = ["register", "render_catalog"]

AgentOption = Annotated[
    str | None, typer.Option("--agent", metavar="ID", help="As this agent sees them (else the default agent).")
]


def render_catalog(catalog: ModelCatalog) -> None:
    """The catalog as a table, for people."""
    if not catalog.models:
        console.print("no models configured: add one under models.providers.<id>.models "
                      "and set agents.defaults.model", highlight=False)
    else:
        table = new_table("Model", "Name", "API", "URL", "Tags", "Runtime",
                          title=f"Models for agent {catalog.agent_id}")
        for m in catalog.models:
            runtime = (f"[red]error[/]: {m.error}" if m.error
                       else f"{m.runtime_label or m.runtime} [dim]({m.reason})[/]")
            table.add_row(m.ref, m.name or "-", m.api or "-", m.url or "-",
                          ", ".join(m.tags) or "-", runtime)
        console.print(table)
    for warning in catalog.warnings:
        err_console.print(f"[yellow]warning[/]: {warning}", highlight=False)


def register(app: typer.Typer) -> None:
    group = typer.Typer(help="List the configured models.", no_args_is_help=True)

    @group.command("list")
    def list_cmd(config: ConfigOption = None, agent: AgentOption = None,
                 as_json: JsonOption = False) -> None:
        """Every configured model per provider: default, fallbacks, aliases, runtime."""
        async def go() -> ModelCatalog:
            async with Host.from_config(config) as host:
                return await host.model_catalog(agent)
        catalog = run_async(go, as_json=as_json)
        if as_json:
            print_json(catalog.to_json())
        else:
            render_catalog(catalog)

    app.add_typer(group, name="models")
