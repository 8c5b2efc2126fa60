"""`clawharness status`: the effective runtime of each agent/model (and a session)."""

from __future__ import annotations

import asyncio
from typing import Annotated

import typer

from clawharness.cli.common import (
    ConfigOption,
    JsonOption,
    console,
    err_console,
    fail,
    new_table,
    print_json,
)
from clawharness.errors import ClawHarnessError
from clawharness.harness import SessionStatus, StatusReport, explain_session
from clawharness.host import Host

__all__ = ["register", "session_explanation", "status_report"]

SessionOption = Annotated[
    str | None, typer.Option("--session", help="Also show this session key's runtime.")
]


def status_report(config_path: str | None, session: str | None) -> StatusReport:
    """The status report, through `Host` (the one door to the core)."""
    async def go() -> StatusReport:
        async with Host.from_config(config_path) as host:
            return await host.status(session)
    return asyncio.run(go())


def session_explanation(session: SessionStatus) -> str | None:
    """Why the session runs where it does, in words (None when selection fails)."""
    return explain_session(session)


def _render(report: StatusReport) -> None:
    table = new_table("Agent", "Model", "Role", "Runtime", "Reason", "Policy",
                      title="Runtime per agent and model")
    for agent in report.agents:
        name = agent.agent_id + (" (default)" if agent.default else "")
        if not agent.models:
            table.add_row(name, "-", "-", "-", "no model configured", "-")
        for model in agent.models:
            runtime = (f"[red]error[/]: {model.error}" if model.error
                       else f"{model.runtime_label} [dim]({model.runtime})[/]")
            policy = f"{model.policy_runtime or '-'} ({model.policy_source or '-'})"
            table.add_row(name, model.ref + (" [yellow](legacy)[/]" if model.legacy_ref else ""),
                          model.role, runtime, model.reason or "-", policy)
    console.print(table)
    thinking = [f"{a.agent_id} {a.thinking.level} [dim]({a.thinking.source})[/]"
                for a in report.agents if a.thinking is not None]
    if thinking:
        console.print("Thinking: " + ", ".join(thinking), highlight=False)
    for session in report.sessions:
        row = session.model
        what = (f"[red]error[/]: {row.error}" if row and row.error else
                f"{row.runtime_label} ({row.reason})" if row else "no model")
        think = (f"; Thinking: {session.thinking.level} ({session.thinking.source})"
                 if session.thinking is not None else "")
        console.print(f"Session {session.session_key}: Runtime: {what}{think}", highlight=False)
        why = session_explanation(session) if session.pinned_harness_id else None
        if why:
            console.print(f"  [dim]{why}[/]", highlight=False)
    if report.harnesses:
        console.print("Harnesses: " + ", ".join(f"{h.id} [dim]({h.owner_plugin_id})[/]"
                                               for h in report.harnesses))
    for warning in report.warnings:
        err_console.print(f"[yellow]warning[/]: {warning}", highlight=False)


def register(app: typer.Typer) -> None:
    @app.command("status")
    def status(config: ConfigOption = None, session: SessionOption = None,
               as_json: JsonOption = False) -> None:
        """Show which runtime each agent/model (and session) would run on, and why."""
        try:
            report = status_report(config, session)
        except ClawHarnessError as exc:
            raise fail(exc, as_json=as_json) from None
        if as_json:
            print_json(report.to_json())
        else:
            _render(report)
