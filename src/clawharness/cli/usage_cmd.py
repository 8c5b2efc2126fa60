"""`clawharness usage`: what turns spent, by day, agent, session, model, runtime or caller.

Read from the store's spend rows (one per finished turn, written by every process and
cluster worker on the store; docs/budgets.md), through `Host`.
"""

from __future__ import annotations

import time
from typing import Annotated, Any, TypeGuard, get_args

import typer

from clawharness.cli.common import (
    ConfigOption,
    JsonOption,
    console,
    new_table,
    print_json,
    run_async,
)
from clawharness.host import Host
from clawharness.store import SpendGrouping, SpendSummary

__all__ = ["register", "usage_json"]

_NANO = 1_000_000_000
_GROUPINGS: tuple[str, ...] = get_args(SpendGrouping)

ByOption = Annotated[str, typer.Option(
    "--by", metavar="<day|agent|session|model|runtime|caller>",
    help="Sum the turns' spend per day (UTC), agent, session, model, runtime or caller.")]
DaysOption = Annotated[int, typer.Option(
    "--days", min=0, metavar="N", help="Turns of the last N days (0: every turn).")]
SessionOption = Annotated[str | None, typer.Option(
    "--session", metavar="KEY", help="Only the turns of this session (a session key).")]


def _is_grouping(value: str) -> TypeGuard[SpendGrouping]:
    return value in _GROUPINGS


def _grouping(value: str) -> SpendGrouping:
    if not _is_grouping(value):
        raise typer.BadParameter(f"--by takes one of {', '.join(_GROUPINGS)}")
    return value


def _row_json(row: SpendSummary) -> dict[str, Any]:
    return {"group": row.group, "turns": row.turns, "inputTokens": row.input_tokens,
            "outputTokens": row.output_tokens, "cacheReadTokens": row.cache_read_tokens,
            "cacheWriteTokens": row.cache_write_tokens,
            "reasoningTokens": row.reasoning_tokens,
            "costUsd": None if row.nano_usd is None else row.nano_usd / _NANO,
            "unpricedTurns": row.unpriced_turns, "seconds": row.ms / 1000}


def _total(rows: list[SpendSummary]) -> SpendSummary:
    priced = [r.nano_usd for r in rows if r.nano_usd is not None]
    return SpendSummary(
        "total", sum(r.turns for r in rows), sum(r.input_tokens for r in rows),
        sum(r.output_tokens for r in rows), sum(r.cache_read_tokens for r in rows),
        sum(r.cache_write_tokens for r in rows), sum(r.reasoning_tokens for r in rows),
        sum(priced) if priced else None, sum(r.unpriced_turns for r in rows),
        sum(r.ms for r in rows))


def usage_json(rows: list[SpendSummary], *, by: str, since: float) -> dict[str, Any]:
    """The `--json` shape: the groups, and their total."""
    return {"by": by, "since": since, "rows": [_row_json(r) for r in rows],
            "total": _row_json(_total(rows))}


def _cost(row: SpendSummary) -> str:
    if row.nano_usd is None:
        return "—"
    text = f"${row.nano_usd / _NANO:,.4f}"
    return text + (f" [dim](+{row.unpriced_turns} unpriced)[/]" if row.unpriced_turns else "")


def _render(rows: list[SpendSummary], by: str, days: int) -> None:
    if not rows:
        console.print("no turns in that time", highlight=False)
        return
    span = f"the last {days} days" if days else "all time"
    table = new_table(by.capitalize(), "Turns", "Input", "Output", "Cache read",
                      "Cache write", "Cost (USD)", "Time", title=f"Usage by {by}, {span}")
    for row in [*rows, _total(rows)]:
        name = f"[bold]{row.group}[/]" if row.group == "total" else row.group
        table.add_row(name, f"{row.turns:,}", f"{row.input_tokens:,}", f"{row.output_tokens:,}",
                      f"{row.cache_read_tokens:,}", f"{row.cache_write_tokens:,}", _cost(row),
                      f"{row.ms / 1000:,.1f} s")
    console.print(table)


def register(app: typer.Typer) -> None:
    @app.command("usage")
    def usage_cmd(config: ConfigOption = None, by: ByOption = "day", days: DaysOption = 30,
                  session: SessionOption = None, as_json: JsonOption = False) -> None:
        """Show what turns spent (tokens, USD, time) by day, agent, session, model,
        runtime or caller."""
        grouping = _grouping(by)
        since = 0.0 if days == 0 else time.time() - days * 86_400

        async def go() -> list[SpendSummary]:
            async with Host.from_config(config) as host:
                return await host.usage(by=grouping, since=since, session_key=session)
        rows = run_async(go, as_json=as_json)
        if as_json:
            print_json(usage_json(rows, by=by, since=since))
        else:
            _render(rows, by, days)
