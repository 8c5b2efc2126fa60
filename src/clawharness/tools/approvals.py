"""Approval gates: where a tool call that needs a person's yes goes.

`TerminalApprovalGate` asks on the terminal when stdin is a TTY and answers None (so the
call is refused) when there is none. `ScriptedApprovalGate` answers from a list, for tests.

The prompt shows what is asked about as it is: the command (control and invisible
characters shown escaped, so a command cannot erase or disguise itself on the screen),
the programs it would run, the working directory, the rule that asked, and what
"always" would cover.
"""

from __future__ import annotations

import asyncio
import json
import sys
import unicodedata
from collections.abc import Callable, Iterable, Mapping
from typing import Any, TextIO

from rich.console import Console
from rich.markup import escape
from rich.panel import Panel

from clawharness.harness.capabilities import ApprovalDecision, ApprovalRequest

__all__ = [
    "ScriptedApprovalGate",
    "TerminalApprovalGate",
    "approval_answer",
    "describe_request",
    "visible",
]

#: the most of a request's arguments a prompt shows
_SHOWN_CHARS = 2000

_CHOICES: dict[str, ApprovalDecision] = {
    "o": "allow-once",
    "once": "allow-once",
    "y": "allow-once",
    "yes": "allow-once",
    "a": "allow-always",
    "always": "allow-always",
    "d": "deny",
    "deny": "deny",
    "n": "deny",
    "no": "deny",
}


def visible(text: str) -> str:
    """`text` with control, format and separator characters written as escapes
    (`\\x1b`, `\\u202e`); newlines and tabs stay."""
    out: list[str] = []
    for char in text:
        if char in "\n\t" or unicodedata.category(char) not in ("Cc", "Cf", "Zl", "Zp", "Co",
                                                                "Cs", "Cn"):
            out.append(char)
        elif ord(char) < 0x100:
            out.append(f"\\x{ord(char):02x}")
        else:
            out.append(f"\\u{ord(char):04x}" if ord(char) < 0x10000 else f"\\U{ord(char):08x}")
    return "".join(out)


def describe_request(request: ApprovalRequest) -> str:
    """What would run, as a person should read it (escaped, at most 2000 characters)."""
    command = request.arguments.get("command")
    if request.tool_name == "exec" and isinstance(command, str):
        text = command
    else:
        try:
            text = json.dumps(dict(request.arguments), ensure_ascii=False, default=str,
                              indent=1)
        except (TypeError, ValueError):
            text = repr(request.arguments)
    if len(text) > _SHOWN_CHARS:
        text = text[:_SHOWN_CHARS] + f"… [{len(text) - _SHOWN_CHARS} more characters]"
    return visible(text)


def approval_answer(text: str) -> ApprovalDecision:
    """An operator's typed answer: o/once/y/yes, a/always, else (d/deny/n/no, anything) deny."""
    return _CHOICES.get(text.strip().lower(), "deny")


class TerminalApprovalGate:
    """Asks the person at the terminal (once at a time); None when there is no terminal."""

    def __init__(
        self,
        *,
        console: Console | None = None,
        stdin: TextIO | None = None,
        is_interactive: Callable[[], bool] | None = None,
    ) -> None:
        self._console = console or Console(stderr=True)
        self._stdin = stdin
        self._is_interactive = is_interactive
        self._lock = asyncio.Lock()

    def _interactive(self) -> bool:
        if self._is_interactive is not None:
            return self._is_interactive()
        stream = self._stdin or sys.stdin
        try:
            return bool(stream is not None and stream.isatty())
        except (AttributeError, ValueError):
            return False

    def _ask(self, request: ApprovalRequest) -> ApprovalDecision | None:
        subject = request.subject
        what = "wants to run" if request.tool_name == "exec" else "wants to call"
        shown = describe_request(request).replace("\n", "\n  ")
        lines = [f"[bold]{escape(visible(request.tool_name))}[/bold] {what}:", "",
                 f"  {escape(shown)}", ""]
        if subject.programs:
            lines.append(f"programs: {escape(visible(', '.join(subject.programs)))}")
        lines.append(f"cwd:      {escape(visible(request.cwd))}")
        lines.append(f"why:      {escape(visible(request.reason))}")
        self._console.print(Panel("\n".join(lines), title="approval needed", expand=False))
        if subject.grant_keys:
            always = f"[a]lways for this session ({visible(subject.grant_label or 'this')}) / "
        else:
            always = ""
        self._console.print(f"Allow? [o]nce / {always}[d]eny (default d): ",
                            end="", markup=False, highlight=False)
        stream = self._stdin or sys.stdin
        try:
            line = stream.readline()
        except (OSError, ValueError, KeyboardInterrupt):
            return None
        if not line:
            return None  # end of input: no one is there to answer
        choice = _CHOICES.get(line.strip().lower(), "deny")
        if choice == "allow-always" and not subject.grant_keys:
            return "allow-once"  # "always" was not offered: it covers this call only
        return choice

    async def decide(self, request: ApprovalRequest) -> ApprovalDecision | None:
        """The operator's answer, or None when no terminal can ask."""
        if not self._interactive():
            return None
        async with self._lock:
            # the prompt blocks on input, so it runs off the event loop
            return await asyncio.to_thread(self._ask, request)


class ScriptedApprovalGate:
    """Answers approval requests from a script, recording every request it saw.

    `answers` is either a sequence, consumed in order (None entries and running out both
    mean "no one answered"), or a mapping from tool name to a fixed answer.
    """

    def __init__(
        self,
        answers: Iterable[ApprovalDecision | None] | Mapping[str, ApprovalDecision | None] = (),
    ) -> None:
        self._by_tool: Mapping[str, ApprovalDecision | None] | None = None
        self._queue: list[ApprovalDecision | None] = []
        if isinstance(answers, Mapping):
            self._by_tool = dict(answers)
        else:
            self._queue = list(answers)
        self.requests: list[ApprovalRequest] = []

    async def decide(self, request: ApprovalRequest) -> ApprovalDecision | None:
        """The next scripted answer for this request."""
        self.requests.append(request)
        if self._by_tool is not None:
            return self._by_tool.get(request.tool_name)
        return self._queue.pop(0) if self._queue else None

    @property
    def remaining(self) -> list[Any]:
        """Answers not yet given (sequence mode)."""
        return list(self._queue)
