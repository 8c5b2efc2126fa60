"""How `clawharness agent` through a running `serve` prints (`cli.via_serve`): the turn's
result, its streamed reply and its errors, as the embedded path's rich consoles print them.

Like `via_serve`, this imports the standard library and `clawharness._text` only (rich is
imported on a terminal, when a line is printed).
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Mapping
from typing import Any

from clawharness._text import terminal_safe, terminal_safe_prefix

__all__ = ["Output", "Streamer", "escape", "print_error", "print_json", "render"]


class Output:
    """Prints as the embedded path's rich consoles do: styled on a terminal (rich, imported
    then only), plain text piped (the markup dropped, nothing wrapped)."""

    def __init__(self) -> None:
        self._consoles: dict[bool, Any] = {}

    def _console(self, stderr: bool) -> Any:
        stream = sys.stderr if stderr else sys.stdout
        try:
            tty = stream.isatty()
        except (AttributeError, ValueError):
            tty = False
        if not tty:
            return None
        if stderr not in self._consoles:
            from rich.console import Console

            self._consoles[stderr] = Console(stderr=stderr)
        return self._consoles[stderr]

    def line(self, styled: str, plain: str, *, stderr: bool = False, markup: bool = True,
             soft_wrap: bool = False) -> None:
        console = self._console(stderr)
        if console is not None:
            console.print(styled, highlight=False, markup=markup, soft_wrap=soft_wrap)
            return
        stream = sys.stderr if stderr else sys.stdout
        stream.write(plain + "\n")
        stream.flush()



_MARKUP = re.compile(r"(\\*)(\[[a-z#/@][^[]*?])")


def escape(text: str) -> str:
    """`rich.markup.escape` (without importing rich for a piped command)."""
    text = _MARKUP.sub(lambda m: f"{m.group(1)}{m.group(1)}\\{m.group(2)}", text)
    return text + "\\" if text.endswith("\\") and not text.endswith("\\\\") else text


def print_error(out: Output, kind: str, message: str, hint: Any = None) -> None:
    out.line(f"[bold red]error[/] [dim]({escape(kind)})[/]: {escape(message)}",
             f"error ({kind}): {message}", stderr=True, soft_wrap=True)
    if hint:
        out.line(f"  [yellow]hint[/]: {escape(str(hint))}", f"  hint: {hint}", stderr=True,
                 soft_wrap=True)


def print_json(value: Any) -> None:
    sys.stdout.write(json.dumps(value, ensure_ascii=False, default=str) + "\n")
    sys.stdout.flush()


class Streamer:
    """The reply as it comes (the embedded path's `on_partial`, same rules)."""

    def __init__(self) -> None:
        self.streamed: list[str] = []

    def partial(self, text: str) -> None:
        streamed = self.streamed
        shown = streamed[0] if streamed else ""
        safe = terminal_safe_prefix(text)
        if safe.startswith(shown):
            sys.stdout.write(safe[len(shown):])
        else:
            held = terminal_safe(streamed[1])
            if held.startswith(shown):
                sys.stdout.write(held[len(shown):])
            sys.stdout.write("\n" + safe)
        sys.stdout.flush()
        streamed[:] = [safe, text]

    def finish(self) -> bool:
        """End the streamed reply; whether anything was streamed."""
        if not self.streamed:
            return False
        rest = terminal_safe(self.streamed[1])
        if rest.startswith(self.streamed[0]):
            sys.stdout.write(rest[len(self.streamed[0]):])
        sys.stdout.write("\n")
        return True


def render(turn: Mapping[str, Any], explanation: str, streamer: Streamer | None,
            as_json: bool) -> int:
    """Print a turn's result (`turn_result_to_wire`'s JSON) as `agent` does; the exit code."""
    terminal = str(turn.get("terminal"))
    error: dict[str, Any] | None = None
    if terminal != "ok":
        raw = turn.get("error") if isinstance(turn.get("error"), dict) else {}
        assert isinstance(raw, dict)
        error = {"type": raw.get("type") or terminal,
                 "message": raw.get("message") or f"the turn ended {terminal}",
                 **{k: v for k, v in raw.items() if k not in ("type", "message")}}
    if as_json:
        if error is not None:
            print_json({"error": error, **{k: v for k, v in turn.items() if k != "error"}})
            return 1
        print_json(dict(turn))
        return 0
    out = Output()
    if not (streamer is not None and streamer.finish()) and turn.get("text"):
        out.line(terminal_safe(str(turn["text"])), terminal_safe(str(turn["text"])),
                 markup=False)
    for call in turn.get("toolCalls") or []:
        name = terminal_safe(str(call.get("name")))
        ok = call.get("ok") is True
        mark = "[green]ok[/]" if ok else "[red]failed[/]"
        out.line(f"[dim]tool[/] {escape(name)} {mark}",
                 f"tool {name} {'ok' if ok else 'failed'}")
        if not ok and call.get("error"):
            text = terminal_safe(str(call["error"]))
            out.line(f"  [dim]{escape(text)}[/]", f"  {text}")
    for warning in turn.get("warnings") or []:
        out.line(f"[yellow]warning[/] {escape(str(warning))}", f"warning {warning}",
                 stderr=True)
    duration = turn.get("durationMs")
    millis = float(duration) if isinstance(duration, int | float) else 0.0
    status = f"{turn.get('sessionKey')} · {terminal} · {millis:.0f} ms"
    out.line(f"[dim]{status}[/]", status)
    out.line(f"[dim]{escape(explanation)}[/]", explanation)
    if error is not None:
        print_error(out, str(error["type"]), str(error["message"]), error.get("hint"))
        return 1
    return 0
