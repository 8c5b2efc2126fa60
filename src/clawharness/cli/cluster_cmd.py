"""`clawharness cluster status`: is the cluster up, and which workers poll it."""

from __future__ import annotations

from typing import TYPE_CHECKING

import typer
from rich.markup import escape

from clawharness.cli.common import (
    ClusterOption,
    ConfigOption,
    JsonOption,
    console,
    new_table,
    print_json,
    run_async,
)
from clawharness.host import Host

if TYPE_CHECKING:
    from clawharness.cluster.status import ClusterStatus

__all__ = ["register"]


def register(app: typer.Typer) -> None:
    group = typer.Typer(help="The Temporal cluster this host submits turns to.",
                        no_args_is_help=True)

    @group.command("status")
    def status(config: ConfigOption = None, cluster: ClusterOption = None,
               as_json: JsonOption = False) -> None:
        """Reach the cluster and list the workers polling its task queue. Exits 1 when
        it is unreachable or no worker polls (turns submitted now would not run)."""

        async def go() -> ClusterStatus:
            return await Host.from_config(config).cluster_status(cluster)

        report = run_async(go, as_json=as_json)
        if as_json:
            print_json(report.to_json())
        else:
            _render(report)
        if not report.ready:
            raise typer.Exit(1)

    app.add_typer(group, name="cluster")


def _render(report: ClusterStatus) -> None:
    table = new_table("Cluster", "", title="cluster status")
    state = ("[green]ready[/]" if report.ready else
             "[yellow]reachable, no worker polls[/]" if report.reachable else
             "[red]unreachable[/]")
    for label, value in (("URL", report.url), ("state", state),
                         ("server", report.server_version or "-"),
                         ("namespace", report.namespace), ("task queue", report.task_queue),
                         ("connection", report.transport)):
        table.add_row(label, value if label == "state" else escape(value))
    if report.error:
        table.add_row("error", f"[red]{escape(report.error)}[/]")
    console.print(table)
    if report.workers:
        workers = new_table("Worker", "Last poll", title="workers polling the task queue")
        for seen in report.workers:
            ago = "-" if seen.seconds_ago is None else f"{max(seen.seconds_ago, 0):.0f}s ago"
            workers.add_row(escape(seen.worker_id), ago)
        console.print(workers)
