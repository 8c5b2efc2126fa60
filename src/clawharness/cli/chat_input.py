"""Where `clawharness chat` reads lines: a prompt_toolkit prompt on a terminal, plain lines
from a pipe. The same reader answers the turn's exec approvals and harness questions
inline, so one Ctrl-C or end of input means the same thing everywhere.

On a terminal `read` and `ask` raise `KeyboardInterrupt` for Ctrl-C and return None for
Ctrl-D. From a pipe `read` returns None at end of input and `ask` returns None at once:
nobody is there to approve anything, so approvals are refused (fail closed).
"""

from __future__ import annotations

import asyncio
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Final, Protocol, TextIO

from prompt_toolkit import PromptSession
from prompt_toolkit.formatted_text import FormattedText
from prompt_toolkit.history import FileHistory, History, InMemoryHistory
from rich.console import Console
from rich.markup import escape
from rich.panel import Panel

from clawharness.harness import BUDGET_EXTEND_TOOL
from clawharness.harness.capabilities import ApprovalDecision, ApprovalRequest
from clawharness.harness.user_input_delivery import UserInputPrompt
from clawharness.tools.approvals import approval_answer, describe_request

__all__ = [
    "BUDGET_EXTEND",
    "ChatApprovalGate",
    "ChatQuestions",
    "LineReader",
    "PipedLineReader",
    "TerminalLineReader",
    "open_line_reader",
]

#: the approval a turn asks for when a budget has no room for it and `budgets.extendBy`
#: is set: a yes/no question, never remembered
BUDGET_EXTEND: Final = BUDGET_EXTEND_TOOL

_PROMPT = FormattedText([("ansicyan bold", "you› ")])
_PAUSED = "\x00paused"  # what a line prompt put away for a question returns (by identity)


class LineReader(Protocol):
    """The chat's input."""

    #: True when a person can answer questions (a terminal)
    interactive: bool

    async def read(self) -> str | None:
        """The next chat line; None at end of input."""

    async def ask(self, question: str, *, multiline: bool = False) -> str | None:
        """An answer to a question asked mid-turn; None when nobody can answer."""


class TerminalLineReader:
    """prompt_toolkit prompts: line editing, and history kept in `history_path`."""

    interactive = True

    def __init__(self, history_path: Path | None) -> None:
        history: History = InMemoryHistory()
        if history_path is not None:
            try:
                history_path.parent.mkdir(parents=True, exist_ok=True)
                history_path.touch(exist_ok=True)
                history = FileHistory(str(history_path))
            except OSError:
                pass  # an unwritable state dir costs the history, not the chat
        self._lines: PromptSession[str] = PromptSession(history=history)
        # answers to approvals and questions stay out of the message history
        self._answers: PromptSession[str] = PromptSession()
        self._asking = asyncio.Lock()
        self._reading: asyncio.Event | None = None  # set while no line prompt is shown
        self._draft = ""

    async def read(self) -> str | None:
        while True:
            async with self._asking:  # a question asked mid-turn has the screen
                self._reading = reading = asyncio.Event()
            try:
                # our own SIGINT handler aborts turns; at the prompt Ctrl-C is a key press
                line = await self._lines.prompt_async(_PROMPT, handle_sigint=False,
                                                      default=self._draft)
            except EOFError:
                return None
            finally:
                reading.set()
            if line is not _PAUSED:
                self._draft = ""
                return line

    async def ask(self, question: str, *, multiline: bool = False) -> str | None:
        async with self._asking:
            reading = self._reading
            if reading is not None and not reading.is_set() and self._lines.app.is_running:
                # the line prompt stays open while a turn runs: put it away (keeping what
                # was typed) while the question is asked
                self._draft = self._lines.default_buffer.text
                self._lines.app.exit(result=_PAUSED)
                await reading.wait()
            try:
                return await self._answers.prompt_async(
                    FormattedText([("bold", question)]), multiline=multiline,
                    handle_sigint=False)
            except EOFError:
                return None


class PipedLineReader:
    """Lines from a stream that is not a terminal (a script, a here-document)."""

    interactive = False

    def __init__(self, stream: TextIO | None = None) -> None:
        self._stream = stream if stream is not None else sys.stdin
        self._queue: asyncio.Queue[str | None] | None = None

    def _start(self) -> asyncio.Queue[str | None]:
        queue: asyncio.Queue[str | None] = asyncio.Queue()
        loop = asyncio.get_running_loop()
        stream = self._stream

        def pump() -> None:
            # a daemon thread: a pending read never holds the process open at exit
            try:
                for line in stream:
                    loop.call_soon_threadsafe(queue.put_nowait, line.rstrip("\r\n"))
            except (OSError, ValueError):
                pass
            finally:
                try:
                    loop.call_soon_threadsafe(queue.put_nowait, None)
                except RuntimeError:
                    pass  # the chat has already ended

        threading.Thread(target=pump, name="chat-stdin", daemon=True).start()
        return queue

    async def read(self) -> str | None:
        if self._queue is None:
            self._queue = self._start()
        line = await self._queue.get()
        if line is None:
            self._queue.put_nowait(None)  # end of input stays the end
        return line

    async def ask(self, question: str, *, multiline: bool = False) -> str | None:
        return None


def open_line_reader(history_path: Path | None) -> LineReader:
    """A terminal reader when stdin and stdout are both terminals, else a piped one."""
    try:
        on_terminal = sys.stdin.isatty() and sys.stdout.isatty()
    except (AttributeError, ValueError):
        on_terminal = False
    return TerminalLineReader(history_path) if on_terminal else PipedLineReader()


class ChatApprovalGate:
    """Asks the chat's user to approve a tool call, inline.

    `allow-always` is remembered in `grants` (tool names) for the rest of the chat's
    session, so later turns do not ask again; the chat clears it on /new. Ctrl-C at the
    question denies the call and calls `on_interrupt` (which aborts the turn).

    A budget's extension (`budget.extend`) is asked as what it is, yes or no, and never
    remembered: an "always" would extend the budget again at every later turn unasked.
    """

    def __init__(self, reader: LineReader, console: Console, grants: set[str],
                 on_interrupt: Callable[[], None]) -> None:
        self._reader = reader
        self._console = console
        self._grants = grants
        self._on_interrupt = on_interrupt
        self._lock = asyncio.Lock()

    async def decide(self, request: ApprovalRequest) -> ApprovalDecision | None:
        if request.tool_name in self._grants:
            return "allow-always"
        if not self._reader.interactive:
            self._console.print(
                f"[yellow]refused[/] {escape(request.tool_name)} needs approval "
                f"[dim]({escape(request.reason)}); there is no terminal to ask, so it is refused[/]",
                highlight=False, soft_wrap=True)
            return None
        async with self._lock:
            if request.tool_name == BUDGET_EXTEND:
                return await self._extend(request)
            if request.tool_name in self._grants:  # granted while this call waited
                return "allow-always"
            self._console.print(Panel(
                f"[bold]{escape(request.tool_name)}[/bold] wants to run:\n\n"
                f"  {escape(describe_request(request))}\n\n"
                f"[dim]cwd: {escape(request.cwd)}\nwhy: {escape(request.reason)}[/dim]",
                title="approval needed", expand=False))
            try:
                answer = await self._reader.ask(
                    "Allow? [o]nce / [a]lways in this session / [d]eny (default d): ")
            except KeyboardInterrupt:
                self._on_interrupt()
                return "deny"
            if answer is None:
                return None
            decision = approval_answer(answer)
            if decision == "allow-always":
                self._grants.add(request.tool_name)
            return decision

    async def _extend(self, request: ApprovalRequest) -> ApprovalDecision | None:
        """Ask whether to extend a spent budget (the request's reason says which, what
        was used and by how much: "... extend it by $2.00?")."""
        self._console.print(Panel(escape(request.reason), title="budget", expand=False))
        try:
            answer = await self._reader.ask("Extend it? [y]es / [n]o (default n): ")
        except KeyboardInterrupt:
            self._on_interrupt()
            return "deny"
        if answer is None:
            return None
        return "allow-once" if answer.strip().lower() in ("y", "yes") else "deny"


class ChatQuestions:
    """A harness's questions for the user, asked inline (`UserInputChannel`)."""

    def __init__(self, reader: LineReader, console: Console,
                 on_interrupt: Callable[[], None]) -> None:
        self._reader = reader
        self._console = console
        self._on_interrupt = on_interrupt

    async def ask(self, prompt: UserInputPrompt) -> str | None:
        if not self._reader.interactive:
            return None
        self._console.print(Panel(escape(prompt.text), title="the agent asks", expand=False))
        several = len(prompt.questions) > 1
        hint = " (one line per question; Esc then Enter sends)" if several else ""
        try:
            reply = await self._reader.ask(f"answer{hint}: ", multiline=several)
        except KeyboardInterrupt:
            self._on_interrupt()
            return None
        return reply if reply is not None and reply.strip() else None
