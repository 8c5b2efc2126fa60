"""How `clawharness chat` shows a turn while it runs: streamed text, tool calls, the end.

A `TurnView` receives the turn's callbacks (`partial` for the cumulative reply text,
`event` for agent events) and prints as they come, so a tool call appears when it starts
(name and a short, redacted summary of its arguments) and again when it ends (ok or
failed, with the one-line preview the host adds to the result event).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.markup import escape

from clawharness._text import terminal_safe, terminal_safe_prefix
from clawharness.harness.types import AgentEvent
from clawharness.records.compaction import CompactionResult
from clawharness.records.turn_result import TurnResult
from clawharness.redaction import redact_tool_detail
from clawharness.tool_display import infer_tool_meta_from_args

__all__ = ["TurnView", "compaction_line", "tool_call_summary"]

_SUMMARY_CHARS = 100


def tool_call_summary(name: str, args: Any, *, home_dir: str | None = None) -> str:
    """A short, redacted one-line summary of a call's arguments ("" when it has none)."""
    detail = infer_tool_meta_from_args(name, args, home_dir=home_dir)
    if detail is None and isinstance(args, Mapping) and args:
        try:
            raw = json.dumps(dict(args), ensure_ascii=False, default=str)
        except (TypeError, ValueError):
            raw = repr(dict(args))
        detail = redact_tool_detail(raw[: _SUMMARY_CHARS * 4])
    if not detail:
        return ""
    detail = " ".join(detail.split())
    return detail if len(detail) <= _SUMMARY_CHARS else detail[: _SUMMARY_CHARS - 1] + "…"


def _quoted(text: str) -> str:
    """Text from a tool, a server or a model, for a line of rich markup."""
    return escape(terminal_safe(text))


class TurnView:
    """Prints one turn as it runs. Create one per turn.

    `whole_lines`: the reply streams a line at a time (the rest of a line when it ends,
    or with the turn): above a live prompt, which redraws itself after every write, a
    part of a line would be cut by the redrawn prompt."""

    def __init__(self, console: Console, *, home_dir: str | None = None,
                 whole_lines: bool = False) -> None:
        self._console = console
        self._whole_lines = whole_lines
        self._pending = ""  # streamed text not yet printed (whole_lines: a line's start)
        self._home = home_dir if home_dir is not None else str(Path.home())
        self._shown = ""  # the current text segment, as printed so far
        self._streaming = ""  # ... and as it came
        self._at_line_start = True
        self.streamed = False
        self._names: dict[str, str] = {}

    # --- output helpers ---------------------------------------------------------------

    def _write(self, text: str) -> None:
        text = terminal_safe(text)
        if not text:
            return
        self._console.print(text, end="", markup=False, highlight=False, emoji=False,
                            soft_wrap=True)
        self._at_line_start = text.endswith("\n")

    def _stream(self, text: str) -> None:
        """Reply text as it streams (with `whole_lines`, up to the last line end)."""
        if not self._whole_lines:
            self._write(text)
            return
        self._pending += text
        cut = self._pending.rfind("\n") + 1
        if cut:
            done, self._pending = self._pending[:cut], self._pending[cut:]
            self._write(done)

    def _flush(self) -> None:
        """What `_stream` holds, printed now."""
        if self._pending:
            text, self._pending = self._pending, ""
            self._write(text)

    def _line(self, markup: str) -> None:
        """A full line of rich markup, starting on a fresh line (what it quotes from
        elsewhere passes `_quoted`)."""
        self._flush()
        if not self._at_line_start:
            self._console.print()
        self._console.print(markup, highlight=False, emoji=False, soft_wrap=True)
        self._at_line_start = True

    def note(self, markup: str) -> None:
        """A dim remark of the chat's own (aborting, stopped waiting)."""
        self._line(f"[dim]{markup}[/]")

    # --- callbacks ----------------------------------------------------------------------

    def partial(self, text: str) -> None:
        """`on_partial_reply`: the reply so far (cumulative within one model step). What
        is shown is the terminal-safe text, short of an escape sequence not yet complete
        (`terminal_safe_prefix`), so a sequence split across chunks is removed whole."""
        safe = terminal_safe_prefix(text)
        if safe.startswith(self._shown):
            self._stream(safe[len(self._shown):])
        else:
            # a new model step after tool calls starts its text afresh
            self._flush()
            if not self._at_line_start:
                self._write("\n")
            self._stream(safe)
        self._shown = safe
        self._streaming = text
        self.streamed = self.streamed or bool(text)

    def event(self, event: AgentEvent) -> None:
        """`on_agent_event`: shows tool calls; the rest is left to `partial` and `finish`."""
        if event.stream != "tool":
            return
        data = event.data
        phase = data.get("phase")
        call_id = str(data.get("toolCallId") or "")
        name = str(data.get("name") or self._names.get(call_id) or "tool")
        if phase == "start":
            self._names[call_id] = name
            summary = tool_call_summary(name, data.get("args"), home_dir=self._home)
            self._line(f"[bold cyan]tool[/] [bold]{_quoted(name)}[/]"
                       + (f" [dim]{_quoted(summary)}[/]" if summary else ""))
            self._shown = ""
        elif phase == "permission" and data.get("allowed") is False:
            reason = data.get("reason")
            self._line(f"  [yellow]refused[/] {_quoted(name)}"
                       + (f" [dim]{_quoted(str(reason))}[/]" if reason else ""))
        elif phase == "result":
            mark = "[red]failed[/]" if data.get("isError") else "[green]ok[/]"
            preview = data.get("preview")
            self._line(f"  {_quoted(name)} {mark}"
                       + (f" [dim]{_quoted(str(preview))}[/]" if preview else ""))
            self._shown = ""

    def finish(self, result: TurnResult) -> None:
        """The end of the turn: the reply if nothing streamed, then how it ended."""
        self._flush()
        if not self.streamed and result.text:
            self._write(result.text)
        elif self._streaming:
            held = terminal_safe(self._streaming)  # what an unfinished sequence held back
            if held.startswith(self._shown):
                self._write(held[len(self._shown):])
        if not self._at_line_start:
            self._write("\n")
        warning = result.incomplete_turn_warning
        if warning:
            self._line(f"[yellow]warning[/]: {_quoted(str(warning))}")
        if result.fallbacks:
            self.note(f"answered by the fallback model {escape(str(result.model))}")
        if result.terminal == "aborted":
            self._line("[yellow]aborted[/]" + (f" [dim]{_quoted(result.error)}[/]"
                                                if result.error else ""))
        elif result.terminal != "ok":
            self._line(f"[bold red]{escape(result.terminal)}[/]: "
                       f"{_quoted(result.error or 'the turn did not complete')}")

    def failed(self, exc: BaseException) -> None:
        """The turn raised before it produced a result (bad model ref, busy session)."""
        kind = getattr(exc, "code", None) or type(exc).__name__
        self._line(f"[bold red]error[/] [dim]({escape(str(kind))})[/]: {_quoted(str(exc))}")


def compaction_line(result: CompactionResult) -> str:
    """One line saying what a compaction did (the CLI and chat)."""
    if not result.compacted:
        return f"[yellow]not compacted[/] {result.session_key}: {escape(result.reason or '')}"
    return (f"[green]compacted[/] {result.session_key}: {result.summarised_entries} entries "
            f"summarised, {result.kept_entries} kept; prompt about {result.tokens_before} -> "
            f"{result.tokens_after} tokens ({result.duration_ms / 1000:.1f} s)")
