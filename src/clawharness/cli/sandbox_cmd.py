"""`clawharness sandbox explain`: what a command of an agent's session would see."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer
from rich.markup import escape

from clawharness.cli.common import (
    ConfigOption,
    JsonOption,
    console,
    err_console,
    new_table,
    print_json,
    run_async,
)

if TYPE_CHECKING:
    from clawharness.tools.sandbox import SandboxExplanation

__all__ = ["register", "render_explanation"]

AgentOption = Annotated[
    str | None, typer.Option("--agent", metavar="ID",
                             help="This agent's main session (else the default agent's).")
]
SessionOption = Annotated[
    str | None, typer.Option("--session", metavar="KEY",
                             help="This session (a key or a bare name of the default agent).")
]


def render_explanation(found: SandboxExplanation) -> None:
    """The explanation as tables, for people."""
    decision = found.decision
    if decision.refusal is not None:
        verdict = f"[red]refused[/]: {escape(decision.refusal)}"
    elif decision.sandboxed:
        verdict = f"[green]sandboxed[/] ({escape(decision.reason)})"
    else:
        verdict = f"[yellow]on the host[/] ({escape(decision.reason)})"
    console.print(f"Agent [bold]{found.agent_id}[/], session {escape(found.session_key)}: "
                  f"exec runs {verdict}", highlight=False)
    settings = found.settings
    console.print(
        f"  mode {settings.mode}{'' if settings.required else ' (default: where one works)'}, "
        f"backend {settings.backend}, scope {settings.scope}, workspaceAccess "
        f"{settings.workspace_access}, workspace {escape(found.workspace)}", highlight=False)
    backends = new_table("Backend", "Works", "Detail", title="Backends on this machine")
    for status in found.backends:
        backends.add_row(status.name, "[green]yes[/]" if status.available else "[red]no[/]",
                         escape(status.detail))
    console.print(backends)
    if found.plan_error is not None:
        err_console.print(f"[red]error[/]: {escape(found.plan_error)}", highlight=False)
    plan = found.plan
    if plan is None:
        if decision.unavailable is not None:
            err_console.print(f"[yellow]warning[/]: {escape(decision.unavailable)}",
                              highlight=False)
        return
    mounts = new_table("Inside", "Kind", "From the host", "Why",
                       title="What the command sees (in this order)")
    for mount in plan.mounts:
        mounts.add_row(escape(mount.target), mount.kind,
                       escape(mount.source or "-"), escape(mount.why))
    console.print(mounts)
    console.print(f"Network: {'[yellow]on[/]' if plan.network else 'off (own loopback only)'}",
                  highlight=False)
    taken = ", ".join(plan.env_from_host) or "none"
    console.print(f"Environment: {', '.join(sorted(plan.env))} "
                  f"[dim](from the host: {escape(taken)}; values not shown)[/]",
                  highlight=False)
    limits = new_table("Limit", "Value", "Held by", title="Limits per command")
    for key, value, how in found.limits():
        held = f"[red]{how}[/]" if how.startswith("not enforced") else how
        limits.add_row(key, value, held)
    console.print(limits)


def register(app: typer.Typer) -> None:
    group = typer.Typer(help="Where exec runs: the OS sandbox of each agent.",
                        no_args_is_help=True)

    @group.command("explain")
    def explain(config: ConfigOption = None, agent: AgentOption = None,
                session: SessionOption = None, as_json: JsonOption = False) -> None:
        """What a command of each agent's main session (or of one agent or session) would
        see: backend, mounts, network, environment, limits."""
        from clawharness.host import Host

        async def go() -> list[SandboxExplanation]:
            host = Host.from_config(config)
            if agent is not None or session is not None:
                return [await host.explain_sandbox(agent, session)]
            return [await host.explain_sandbox(agent_id) for agent_id in host.agent_ids()]

        found = run_async(go, as_json=as_json)
        if as_json:
            print_json({"agents": [item.to_json() for item in found]})
            return
        for index, item in enumerate(found):
            if index:
                console.print()
            render_explanation(item)

    app.add_typer(group, name="sandbox")
