"""`clawharness sessions list --children [KEY]` and `clawharness sessions kill KEY`: the
child sessions `sessions_spawn` started, from the registry in the store
(docs/portable-sessions.md, "Sub-agents")."""

import datetime as dt
import time
from typing import Annotated, Any

import typer
from rich.markup import escape

from clawharness._text import terminal_safe
from clawharness.cli.common import (
    ConfigOption,
    JsonOption,
    console,
    new_table,
    print_json,
    run_async,
)
from clawharness.host import Host
from clawharness.store import SubagentRecord

__all__ = ["list_children", "register_subagents", "subagent_json"]

#: how much of a child's task and result a table shows
_CELL_CHARS = 60


def _cell(text: str | None) -> str:
    flat = " ".join(terminal_safe(text or "").split())
    return escape(flat if len(flat) <= _CELL_CHARS else flat[:_CELL_CHARS - 1] + "…") or "-"


def _status(record: SubagentRecord, now: float) -> str:
    from clawharness.subagents import LOST_AFTER_SECONDS

    return "lost" if record.lost(now, after=LOST_AFTER_SECONDS) else record.status


def subagent_json(record: SubagentRecord, now: float) -> dict[str, Any]:
    """A child as `--json` shows it (the tool's receipt spellings)."""
    return {"childSessionKey": record.child_key, "parentSessionKey": record.parent_key,
            "runId": record.run_id, "agentId": record.agent_id,
            "status": _status(record, now), "depth": record.depth, "task": record.task,
            "label": record.label, "context": record.context, "runtime": record.runtime,
            "model": record.model_ref, "owner": record.owner,
            "createdAt": record.created_at, "endedAt": record.ended_at,
            "result": record.result, "error": record.error, "announced": record.announced}


def list_children(key: str | None, config: Any, as_json: bool) -> None:
    """Print the children of session `key` (every child when None), oldest first."""
    async def go() -> list[SubagentRecord]:
        async with Host.from_config(config) as host:
            parent = host.session_key(key) if key else None
            return await host.subagents.children(parent)
    records = run_async(go, as_json=as_json)
    now = time.time()
    if as_json:
        print_json([subagent_json(r, now) for r in records])
        return
    if not records:
        console.print("no sub-agents" + (f" of {escape(key)}" if key else "")
                      + ": a turn starts one with the sessions_spawn tool", highlight=False)
        return
    table = new_table("child session", "parent", "status", "depth", "label / task",
                      "runtime", "started", "result")
    for r in records:
        started = dt.datetime.fromtimestamp(r.created_at).strftime("%Y-%m-%d %H:%M:%S")
        table.add_row(escape(r.child_key), escape(r.parent_key), _status(r, now),
                      str(r.depth), _cell(r.label or r.task), escape(r.runtime or "-"),
                      started, _cell(r.result or r.error))
    console.print(table)


def register_subagents(sessions: typer.Typer) -> None:
    @sessions.command("kill")
    def kill_cmd(key: Annotated[str, typer.Argument(help="The child session's key.")],
                 config: ConfigOption = None, as_json: JsonOption = False) -> None:
        """Kill a sub-agent (and its active children): the host running it aborts its
        turn and tells its parent."""
        async def go() -> list[SubagentRecord]:
            async with Host.from_config(config) as host:
                return await host.subagents.kill(host.session_key(key),
                                                 reason="killed by `clawharness sessions kill`")
        killed = run_async(go, as_json=as_json)
        now = time.time()
        if as_json:
            print_json({"killed": [subagent_json(r, now) for r in killed]})
            return
        if not killed:
            console.print(f"[yellow]{escape(key)} had already ended[/]", highlight=False)
            return
        for r in killed:
            console.print(f"[green]killed[/] {escape(r.child_key)}", highlight=False)
