"""`clawharness chat`: an interactive chat in the terminal, one session, many turns.

Replies stream as they come; tool calls show when they start and end; exec approvals and
harness questions are asked inline; slash commands manage the session (`/new`, `/reset`,
`/status`, `/model`, `/queue`, `/help`, `/exit`). On a terminal the prompt stays open while a
turn runs: a line typed then goes to the same session with the chat's queue mode (steered
into the running turn by default, docs/steering.md). Ctrl-C aborts the running turn (a
second one stops waiting for it), not the chat; Ctrl-D or `/exit` leaves. On a terminal lines are read
with prompt_toolkit (editing, history in `<state dir>/chat-history`); from a pipe they are
read plainly, approvals are refused, and the exit code is 1 when a turn failed.
Everything reaches the core through `Host`.
"""

from __future__ import annotations

import asyncio
import signal
from collections.abc import Callable
from typing import Annotated

import typer
from prompt_toolkit.patch_stdout import patch_stdout
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from clawharness.attempt.turn import TurnOptions
from clawharness.cli.chat_commands import (
    COMMAND_HELP,
    ChatCommand,
    ChatCommandError,
    ChatMessage,
    parse_chat_line,
)
from clawharness.cli.chat_input import ChatApprovalGate, ChatQuestions, LineReader, open_line_reader
from clawharness.cli.chat_render import TurnView, compaction_line
from clawharness.cli.common import ConfigOption, console, run_async
from clawharness.config.schema import QueueMode
from clawharness.errors import ClawHarnessError, SessionNotFoundError
from clawharness.host import Host
from clawharness.models import parse_thinking_level, resolve_agent_thinking
from clawharness.records.turn_result import TurnResult
from clawharness.sessions.queue import parse_queue_mode
from clawharness.store import SessionRecord

__all__ = ["ChatLoop", "register"]


class ChatLoop:
    """One chat: reads lines, runs turns and commands, until end of input or /exit."""

    def __init__(self, host: Host, reader: LineReader, out: Console, *,
                 session: str | None, model: str | None, timeout: float | None) -> None:
        self.host = host
        self.reader = reader
        self.out = out
        self.session_key = host.session_key(session)
        self.model = model
        self.timeout = timeout
        self.last: TurnResult | None = None
        self.failed_turns = 0
        #: tools approved "always" in this chat's current session (cleared by /new)
        self.grants: set[str] = set()
        #: the mode of a message typed while a turn runs (None: the agent's queue.mode)
        self.queue_mode: QueueMode | None = None
        self._turns: set[asyncio.Future[None]] = set()
        self._interrupts: list[Callable[[], None]] = []

    async def run(self) -> int:
        """The chat's exit code: 0, or 1 when a turn failed on a non-interactive chat."""
        if self.model is not None:
            self.model = self.host.model_ref(self.model)  # a bad --model fails at once
        await self._banner()
        while True:
            try:
                line = await self.reader.read()
            except KeyboardInterrupt:
                if self._interrupts:  # Ctrl-C typed at the prompt while a turn runs
                    self._interrupt_all()
                else:
                    self._say("[dim](Ctrl-C aborts a running turn; /exit or Ctrl-D leaves)[/]")
                continue
            if line is None:
                break
            try:
                parsed = parse_chat_line(line)
            except ChatCommandError as exc:
                self._say(f"[red]{escape(str(exc))}[/]")
                continue
            if parsed is None:
                continue
            if isinstance(parsed, ChatMessage):
                if self.reader.interactive:
                    self._send(parsed.text)  # the prompt stays open: the next line can steer
                else:
                    await self.turn(parsed.text)  # a script's lines are its turns, in turn
            elif parsed.name == "exit":
                break
            elif parsed.name in ("queue", "help"):
                await self.command(parsed)
            else:
                await self._settle()  # the session's commands see the turns' results
                await self.command(parsed)
        await self._settle()
        return 1 if self.failed_turns and not self.reader.interactive else 0

    def _send(self, text: str) -> None:
        """Start a turn without waiting for it; while one runs, the message goes to the
        same session with the chat's queue mode (steered into it by default)."""
        if self._turns:
            mode = self.queue_mode or "the agent's queue mode"
            self._say(f"[dim]sent to the running turn's session ({escape(mode)})[/]")
        task = asyncio.ensure_future(self._shown_turn(text))
        self._turns.add(task)
        task.add_done_callback(self._turn_done)

    def _turn_done(self, task: asyncio.Future[None]) -> None:
        self._turns.discard(task)
        if not task.cancelled() and task.exception() is not None:
            self.failed_turns += 1  # a bug, not a turn's failure: say so rather than lose it
            self._say(f"[bold red]error[/]: {escape(repr(task.exception()))}")

    async def _shown_turn(self, text: str) -> None:
        await self.turn(text)
        if not self._turns - {asyncio.current_task()}:
            self.out.print()  # a gap between one exchange and the next prompt

    async def _settle(self) -> None:
        """Wait for the turns the chat started (Ctrl-C aborts them)."""
        while self._turns:
            await asyncio.wait(set(self._turns))

    def _say(self, markup: str) -> None:
        """One message of the chat's own; long lines wrap softly (a pipe reads them whole)."""
        self.out.print(markup, highlight=False, soft_wrap=True)

    # --- turns --------------------------------------------------------------------------

    async def turn(self, text: str) -> TurnResult | None:
        """Run one turn, shown as it runs; Ctrl-C aborts it."""
        # above the open prompt (an interactive chat), the reply prints whole lines
        view = TurnView(self.out, whole_lines=self.reader.interactive)
        abort = asyncio.Event()
        opts = TurnOptions(
            model=self.model, on_partial_reply=view.partial, on_agent_event=view.event,
            abort=abort, timeout=self.timeout, queue_mode=self.queue_mode,
            approvals=ChatApprovalGate(self.reader, self.out, self.grants, abort.set),
            user_input=ChatQuestions(self.reader, self.out, abort.set),
        )
        task = asyncio.ensure_future(self.host.run_turn(self.session_key, text, opts))
        stopped = False

        def interrupt() -> None:
            nonlocal stopped
            if not abort.is_set():
                abort.set()
                view.note("aborting… (Ctrl-C again to stop waiting)")
            else:
                stopped = True
                task.cancel()

        loop = asyncio.get_running_loop()
        self._interrupts.append(interrupt)
        if len(self._interrupts) == 1:
            _add_sigint_handler(loop, self._interrupt_all)
        try:
            result = await task
        except asyncio.CancelledError:
            if not stopped:
                raise
            view.note("stopped waiting for the turn")
            self.failed_turns += 1
            return None
        except ClawHarnessError as exc:
            view.failed(exc)
            self.failed_turns += 1
            return None
        finally:
            self._interrupts.remove(interrupt)
            if not self._interrupts:
                _remove_sigint_handler(loop)
        if result.queue is not None and result.queue.carried is not None:
            # the running turn took this message: its reply, shown there, answers it too
            view.note(f"↳ {escape(text)!r} was {result.queue.carried} into the running turn "
                      f"(its reply above answers it)")
            return result
        view.finish(result)
        self.last = result
        if result.terminal != "ok":
            self.failed_turns += 1
        return result

    def _interrupt_all(self) -> None:
        """Ctrl-C: abort the running turns (again: stop waiting for them)."""
        for interrupt in list(self._interrupts):
            interrupt()

    # --- commands -----------------------------------------------------------------------

    async def command(self, command: ChatCommand) -> None:
        try:
            if command.name in ("new", "reset"):
                await self._reset(command.name)
            elif command.name == "compact":
                await self._compact(command.argument)
            elif command.name == "status":
                await self._status()
            elif command.name == "model":
                await self._model(command.argument)
            elif command.name == "think":
                await self._think(command.argument)
            elif command.name == "queue":
                self._queue(command.argument)
            elif command.name == "help":
                self._help()
        except ClawHarnessError as exc:
            self._say(f"[red]{escape(str(exc))}[/]")

    async def _reset(self, reason: str) -> None:
        if await self._record() is None:
            self._say(f"[dim]nothing to reset yet: the next message starts "
                           f"{escape(self.session_key)}[/]")
            return
        record = await self.host.reset_session(self.session_key, reason=reason)
        self.grants.clear()
        self.last = None
        self._say(f"[green]fresh session[/] {escape(record.key)} "
                       f"[dim](id {escape(record.session_id)}; the old transcript is kept)[/]")

    async def _compact(self, focus: str | None) -> None:
        if await self._record() is None:
            self._say(f"[dim]nothing to compact yet: {escape(self.session_key)} has no turn[/]")
            return
        self._say("[dim]summarising the oldest history...[/]")
        self._say(compaction_line(await self.host.compact_session(self.session_key,
                                                                  focus=focus)))

    async def _record(self) -> SessionRecord | None:
        try:
            return await self.host.get_session(self.session_key)
        except SessionNotFoundError:
            return None

    async def _status(self) -> None:
        record = await self._record()
        report = await self.host.status(self.session_key, model=self.model)
        row = report.sessions[0].model if report.sessions else None
        grid = Table.grid(padding=(0, 2))
        grid.add_column(style="bold")
        grid.add_column()
        if record is None:
            grid.add_row("session", f"{escape(self.session_key)} [dim](not started yet)[/]")
        else:
            entries = len(await self.host.history(record.key))
            grid.add_row("session", f"{escape(record.key)} [dim](id {escape(record.session_id)}, "
                                    f"{entries} transcript entries)[/]")
        if row is None:
            grid.add_row("model", "[red]none configured[/] (set agents.defaults.model or /model)")
        else:
            grid.add_row("model", escape(row.ref) + (" [dim](/model)[/]" if self.model else ""))
            if row.error:
                grid.add_row("runtime", f"[red]error[/]: {escape(row.error)}")
            else:
                grid.add_row("runtime", f"{escape(row.runtime_label or '-')} "
                                        f"[dim]({escape(row.runtime or '-')})[/]")
                grid.add_row("selected", escape(row.reason or "-"))
        grid.add_row("thinking", await self._thinking())
        if record is not None and record.agent_harness_id:
            grid.add_row("pinned", f"{escape(record.agent_harness_id)} [dim](a session keeps the "
                                   "runtime it started on; /new starts a fresh one)[/]")
        if self.last is not None:
            grid.add_row("last turn", f"{escape(self.last.terminal)} on "
                                      f"{escape(self.last.runtime)} "
                                      f"({escape(self.last.selected_reason)}), "
                                      f"{self.last.duration_ms:.0f} ms")
        self.out.print(grid)
        for warning in report.warnings:
            self._say(f"[yellow]warning[/]: {escape(warning)}")

    async def _model(self, ref: str | None) -> None:
        if ref is None:
            report = await self.host.status(self.session_key, model=self.model)
            row = report.sessions[0].model if report.sessions else None
            shown = row.ref if row is not None else "none configured"
            self._say(f"model [bold]{escape(shown)}[/]"
                           + ("" if row is None or row.error else
                              f" [dim]on {escape(row.runtime or '-')} ({escape(row.reason or '-')})[/]"))
            return
        canonical = self.host.model_ref(ref)
        report = await self.host.status(self.session_key, model=canonical)
        row = report.sessions[0].model if report.sessions else None
        if row is not None and row.error:
            self._say(f"[red]cannot use {escape(canonical)}[/]: {escape(row.error)} "
                           f"[dim](still on {escape(self.model or 'the session model')})[/]")
            return
        self.model = canonical
        runtime = f" on {row.runtime} ({row.reason})" if row is not None and row.runtime else ""
        self._say(f"[green]model[/] {escape(canonical)}[dim]{escape(runtime)} "
                       "for the next turns[/]")

    async def _thinking(self) -> str:
        """The session's level for its next turn, and where it is set, in words."""
        record = await self._record()
        agent_id = record.agent_id if record is not None else self.session_key.split(":")[1]
        resolved = resolve_agent_thinking(
            self.host.config, agent_id,
            session=record.meta.thinking_level if record is not None else None)
        if resolved.level is None:
            return "not set [dim](the provider's default; /think LEVEL sets one)[/]"
        where = {"session": "this session (/think)", "agent": "the agent's thinkingDefault",
                 "default": "agents.defaults.thinkingDefault"}[resolved.source or "default"]
        return f"[bold]{resolved.level}[/] [dim]({where})[/]"

    async def _think(self, argument: str | None) -> None:
        if argument is None:
            self._say("thinking " + await self._thinking())
            return
        clear = argument.strip().lower() in ("default", "inherit", "clear", "reset")
        level = None if clear else parse_thinking_level(argument)
        await self.host.ensure_session(self.session_key, meta={"thinkingLevel": level})
        if level is None:
            self._say("[green]thinking[/] back to the agent's: " + await self._thinking())
        else:
            self._say(f"[green]thinking level[/] {level} [dim]for this session's turns[/]")

    def _queue(self, argument: str | None) -> None:
        if argument is not None:
            self.queue_mode = parse_queue_mode(argument)
        shown = self.queue_mode or "the agent's (agents.*.queue.mode, default steer)"
        self._say(f"queue mode [bold]{escape(shown)}[/] [dim](a message typed while a turn "
                  "runs)[/]")

    def _help(self) -> None:
        grid = Table.grid(padding=(0, 2))
        grid.add_column(style="bold cyan")
        grid.add_column()
        for usage, what in COMMAND_HELP:
            grid.add_row(escape(usage), escape(what))
        grid.add_row("Ctrl-C", "abort the running turn (twice: stop waiting for it)")
        grid.add_row("//text", "send a message that starts with /")
        self.out.print(grid)

    async def _banner(self) -> None:
        report = await self.host.status(self.session_key, model=self.model)
        row = report.sessions[0].model if report.sessions else None
        model = escape(row.ref) if row is not None else "[red]no model configured[/]"
        self._say(f"[bold]clawharness chat[/] · {escape(self.session_key)} · {model}")
        problem = row.error if row is not None else None
        if row is not None and problem is None:
            try:
                self.host.model_ref(row.ref)  # a session keeps its model across config edits
            except ClawHarnessError as exc:
                problem = str(exc)
        if problem is not None:
            self._say(f"[red]warning[/]: {escape(problem)} [dim](/model REF picks another)[/]")
        if self.reader.interactive:
            self._say("[dim]/help for commands · Ctrl-C aborts a turn · Ctrl-D leaves[/]")


def _add_sigint_handler(loop: asyncio.AbstractEventLoop, handler: Callable[[], None]) -> None:
    try:
        loop.add_signal_handler(signal.SIGINT, handler)
    except (NotImplementedError, RuntimeError, ValueError):
        pass  # not the main thread, or no signals here


def _remove_sigint_handler(loop: asyncio.AbstractEventLoop) -> None:
    try:
        loop.remove_signal_handler(signal.SIGINT)
    except (NotImplementedError, RuntimeError, ValueError):
        pass


def register(app: typer.Typer) -> None:
    @app.command("chat")
    def chat(
        config: ConfigOption = None,
        session: Annotated[str | None, typer.Option(
            "--session", "-s", help="Session key or name (default: main).")] = None,
        model: Annotated[str | None, typer.Option(
            "--model", help="Model ref for this chat, e.g. openai/gpt-5.5 (/model switches).")] = None,
        timeout: Annotated[float | None, typer.Option(
            help="Give up on a turn after N seconds.")] = None,
    ) -> None:
        """Chat with the agent in the terminal: streamed replies, tools, approvals, /commands."""
        async def go() -> int:
            async with Host.from_config(config) as host:
                reader = open_line_reader(host.state_dir / "chat-history")
                chat = ChatLoop(host, reader, console, session=session, model=model,
                                timeout=timeout)
                if not reader.interactive:
                    return await chat.run()
                with patch_stdout(raw=True):  # replies print above the open prompt
                    return await chat.run()

        code = run_async(go, as_json=False)
        if code:
            raise typer.Exit(code)
