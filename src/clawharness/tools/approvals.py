"""Approval gates: where a tool call that needs a person's yes goes.

`TerminalApprovalGate` asks on the terminal when stdin is a TTY and answers None (so the
call is refused) when there is none. `ScriptedApprovalGate` answers from a list, for tests.
"""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import Callable, Iterable, Mapping
from typing import Any, TextIO

from rich.console import Console
from rich.markup import escape
from rich.panel import Panel

from clawharness.harness.capabilities import ApprovalDecision, ApprovalRequest

__all__ = ["ScriptedApprovalGate", "TerminalApprovalGate", "approval_answer", "describe_request"]

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


def describe_request(request: ApprovalRequest) -> str:
    """A short human description of what would run."""
    command = request.arguments.get("command")
    if request.tool_name == "exec" and isinstance(command, str):
        return command
    try:
        return json.dumps(dict(request.arguments), ensure_ascii=False, default=str)[:2000]
    except (TypeError, ValueError):
        return repr(request.arguments)[:2000]


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
        body = (
            f"[bold]{escape(request.tool_name)}[/bold] wants to run:\n\n"
            f"  {escape(describe_request(request))}\n\n"
            f"[dim]cwd: {escape(request.cwd)}\nwhy: {escape(request.reason)}[/dim]"
        )
        self._console.print(Panel(body, title="approval needed", expand=False))
        self._console.print("Allow? [o]nce / [a]lways this session / [d]eny (default d): ",
                            end="", markup=False)
        stream = self._stdin or sys.stdin
        try:
            line = stream.readline()
        except (OSError, ValueError, KeyboardInterrupt):
            return None
        if not line:
            return None  # end of input: no one is there to answer
        return _CHOICES.get(line.strip().lower(), "deny")

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
