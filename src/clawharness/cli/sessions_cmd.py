"""`clawharness sessions ...` and `clawharness transcript search`."""

import datetime as dt
import sys
from typing import TYPE_CHECKING, Annotated, Any

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
from clawharness.cli.portable_cmd import register_portable
from clawharness.cli.subagents_cmd import list_children, register_subagents
from clawharness.errors import ConfirmationRequiredError
from clawharness.host import Host
from clawharness.store import SessionRecord, TranscriptEntry

if TYPE_CHECKING:
    from clawharness.records import CompactionResult

__all__ = ["register"]

YesOption = Annotated[bool, typer.Option("--yes", "-y", help="Do not ask for confirmation.")]

#: how much of a hit's text a search table shows
SNIPPET_CHARS = 100


def _snippet(text: str | None) -> str:
    flat = " ".join(terminal_safe(text or "").split())
    return flat if len(flat) <= SNIPPET_CHARS else flat[:SNIPPET_CHARS - 1] + "…"


def _when(ts: float) -> str:
    return dt.datetime.fromtimestamp(ts).strftime("%Y-%m-%d %H:%M:%S") if ts else "-"


def session_json(record: SessionRecord) -> dict[str, Any]:
    return {
        "sessionKey": record.key, "sessionId": record.session_id, "agentId": record.agent_id,
        "model": record.model_ref, "agentHarnessId": record.agent_harness_id,
        "createdAt": record.created_at, "updatedAt": record.updated_at,
    }


def entry_json(entry: TranscriptEntry) -> dict[str, Any]:
    return {"seq": entry.seq, "role": entry.role, "text": entry.text, "content": entry.content,
            "createdAt": entry.created_at}


def register(app: typer.Typer) -> None:
    sessions = typer.Typer(help="List, show, reset, compact, delete, fork, adopt and hand off "
                                "sessions; list and kill sub-agents.",
                           no_args_is_help=True)
    transcript = typer.Typer(help="Search transcripts.", no_args_is_help=True)

    @sessions.command("list")
    def list_cmd(key: Annotated[str | None, typer.Argument(
                     help="With --children: only this session's children.")] = None,
                 config: ConfigOption = None, as_json: JsonOption = False,
                 agent: Annotated[str | None, typer.Option(help="Only this agent.")] = None,
                 limit: Annotated[int | None, typer.Option(help="At most N sessions.")] = None,
                 children: Annotated[bool, typer.Option(
                     "--children", help="The sub-agents sessions_spawn started (of KEY, "
                     "or all) instead.")] = False) -> None:
        """Sessions, most recently used first; with --children, the sub-agents."""
        if children or key is not None:
            list_children(key, config, as_json)
            return
        async def go() -> list[SessionRecord]:
            async with Host.from_config(config) as host:
                return await host.list_sessions(agent_id=agent, limit=limit)
        records = run_async(go, as_json=as_json)
        if as_json:
            print_json([session_json(r) for r in records])
            return
        if not records:
            console.print("no sessions yet: `clawharness agent -m TEXT` starts one")
            return
        table = new_table("session key", "session id", "model", "runtime", "updated")
        for r in records:
            table.add_row(r.key, r.session_id[:8], r.model_ref or "-", r.agent_harness_id or "-", _when(r.updated_at))
        console.print(table)

    @sessions.command("show")
    def show_cmd(key: str, config: ConfigOption = None, as_json: JsonOption = False,
                 last: Annotated[int | None, typer.Option(help="Only the newest N entries.")] = None) -> None:
        """One session and its transcript."""
        async def go() -> tuple[SessionRecord, list[TranscriptEntry]]:
            async with Host.from_config(config) as host:
                return await host.get_session(key), await host.history(key, last=last)
        record, entries = run_async(go, as_json=as_json)
        if as_json:
            print_json({**session_json(record), "entries": [entry_json(e) for e in entries]})
            return
        console.print(f"[bold]{record.key}[/]  id {record.session_id}  model {record.model_ref or '-'}  "
                      f"runtime {record.agent_harness_id or '-'}", highlight=False)
        render_transcript(entries)

    @sessions.command("reset")
    def reset_cmd(key: str, config: ConfigOption = None, as_json: JsonOption = False) -> None:
        """Start a fresh physical session under the same key (like /reset)."""
        async def go() -> SessionRecord:
            async with Host.from_config(config) as host:
                return await host.reset_session(key)
        record = run_async(go, as_json=as_json)
        if as_json:
            print_json(session_json(record))
        else:
            console.print(f"[green]reset[/] {record.key} -> new session id {record.session_id}", highlight=False)

    @sessions.command("compact")
    def compact_cmd(key: str, config: ConfigOption = None, as_json: JsonOption = False,
                    focus: Annotated[str | None, typer.Option(
                        "--focus", help="What the summary should keep above all.")] = None,
                    ) -> None:
        """Summarise the session's oldest history now (like /compact); the originals stay."""
        async def go() -> "CompactionResult":
            async with Host.from_config(config) as host:
                return await host.compact_session(key, focus=focus)
        result = run_async(go, as_json=as_json)
        if as_json:
            print_json(result.to_wire())
            return
        # the chat's renderer (and the tool display it imports) only for this command
        from clawharness.cli.chat_render import compaction_line

        console.print(compaction_line(result), highlight=False)
        if result.compacted and result.summary:
            console.print(escape(terminal_safe(result.summary)), highlight=False)

    @sessions.command("delete")
    def delete_cmd(key: str, config: ConfigOption = None, as_json: JsonOption = False,
                   yes: YesOption = False) -> None:
        """Delete a session and its transcript (asks first; --yes skips the question)."""
        def confirmed(record: SessionRecord) -> bool:
            if yes:
                return True
            if not sys.stdin.isatty():
                raise ConfirmationRequiredError(
                    f"not deleting {record.key}: stdin is not a terminal, so nobody can "
                    "confirm", hint=f"pass --yes to delete it: clawharness sessions delete "
                    f"{key} --yes")
            return typer.confirm(f"Delete session {record.key} and its transcript?",
                                 default=False, err=True)

        async def go() -> tuple[SessionRecord, bool]:
            async with Host.from_config(config) as host:
                record = await host.get_session(key)
                if not confirmed(record):
                    return record, False
                return record, await host.delete_session(record.key)
        record, deleted = run_async(go, as_json=as_json)
        if as_json:
            print_json({"deleted": deleted, "sessionKey": record.key})
        elif deleted:
            console.print(f"[green]deleted[/] {record.key}", highlight=False)
        else:
            console.print(f"[yellow]kept[/] {record.key}", highlight=False)
        if not deleted:
            raise typer.Exit(1)

    @transcript.command("search")
    def search_cmd(query: str, config: ConfigOption = None, as_json: JsonOption = False,
                   session: Annotated[str | None, typer.Option("--session", help="Only this session key.")] = None,
                   limit: Annotated[int, typer.Option(help="At most N hits.")] = 20) -> None:
        """Full-text search over transcripts."""
        async def go() -> list[Any]:
            async with Host.from_config(config) as host:
                return await host.search(query, session_key=session, limit=limit)
        hits = run_async(go, as_json=as_json)
        if as_json:
            print_json([{"sessionKey": h.session_key, "sessionId": h.session_id, "seq": h.seq,
                         "role": h.role, "text": h.text, "score": h.score} for h in hits])
            return
        if not hits:
            where = f" in {session}" if session else ""
            console.print(f"no matches for {query!r}{where}", highlight=False)
            return
        table = new_table("session key", "seq", "role", "text")
        for h in hits:
            table.add_row(h.session_key, str(h.seq), h.role, escape(_snippet(h.text)))
        console.print(table)

    register_portable(sessions)
    register_subagents(sessions)
    app.add_typer(sessions, name="sessions")
    app.add_typer(transcript, name="transcript")


def render_transcript(entries: list[TranscriptEntry]) -> None:
    colors = {"user": "cyan", "assistant": "green", "toolResult": "magenta",
              "compactionSummary": "yellow"}
    for e in entries:
        color = colors.get(e.role, "white")
        text = escape(terminal_safe(e.text or "").strip()) or "(no text)"
        console.print(f"[dim]{e.seq:>4}[/] [bold {color}]{e.role:<10}[/] {text}", highlight=False)
