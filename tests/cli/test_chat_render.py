"""How a chat turn is shown while it runs."""

from __future__ import annotations

import io
from typing import Any

from rich.console import Console

from clawharness.cli.chat_render import TurnView, tool_call_summary
from clawharness.harness.types import AgentEvent
from clawharness.records.turn_result import TurnResult


def _view() -> tuple[TurnView, io.StringIO]:
    out = io.StringIO()
    console = Console(file=out, width=200, color_system=None, force_terminal=False)
    return TurnView(console, home_dir="/home/someone"), out


def _result(**changes: Any) -> TurnResult:
    base: dict[str, Any] = dict(session_key="agent:main:t", session_id="s", run_id="r",
                                runtime="openclaw", selected_reason="auto_openclaw",
                                terminal="ok", text="")
    base.update(changes)
    return TurnResult(**base)


def test_cumulative_partials_print_only_what_is_new() -> None:
    view, out = _view()
    for text in ("He", "Hello", "Hello, world"):
        view.partial(text)
    view.finish(_result(text="Hello, world"))
    assert out.getvalue() == "Hello, world\n"


def test_a_tool_call_shows_its_start_and_its_outcome_between_text_segments() -> None:
    view, out = _view()
    view.partial("Let me write that.")
    view.event(AgentEvent("tool", {"phase": "start", "name": "write", "toolCallId": "c1",
                                   "args": {"path": "/home/someone/notes.md", "content": "abc"}}))
    view.event(AgentEvent("tool", {"phase": "result", "name": "write", "toolCallId": "c1",
                                   "isError": False, "preview": "Successfully wrote 3 bytes"}))
    view.partial("Done")  # the next model step's text starts afresh
    view.finish(_result(text="Done"))
    assert out.getvalue().splitlines() == [
        "Let me write that.",
        "tool write to ~/notes.md (3 chars)",
        "  write ok Successfully wrote 3 bytes",
        "Done",
    ]


def test_a_failed_call_and_a_refused_permission_are_marked() -> None:
    view, out = _view()
    view.event(AgentEvent("tool", {"phase": "start", "name": "exec", "toolCallId": "c2",
                                   "args": {"command": "rm -rf build"}}))
    view.event(AgentEvent("tool", {"phase": "permission", "name": "exec", "toolCallId": "c2",
                                   "allowed": False, "reason": "tools.deny"}))
    view.event(AgentEvent("tool", {"phase": "result", "toolCallId": "c2", "isError": True,
                                   "preview": "Tool 'exec' was not run"}))
    lines = out.getvalue().splitlines()
    assert lines[0].startswith("tool exec ") and "rm -rf build" in lines[0]
    assert lines[1:] == ["  refused exec tools.deny", "  exec failed Tool 'exec' was not run"]


def test_a_reply_that_did_not_stream_is_printed_at_the_end() -> None:
    view, out = _view()
    view.finish(_result(text="all at once"))
    assert out.getvalue() == "all at once\n"


def test_an_aborted_or_failed_turn_says_so() -> None:
    view, out = _view()
    view.partial("partial answ")
    view.finish(_result(terminal="aborted", error="aborted"))
    assert out.getvalue().splitlines() == ["partial answ", "aborted aborted"]
    view, out = _view()
    view.finish(_result(terminal="failed", error="connection to http://127.0.0.1:9/v1 failed"))
    assert out.getvalue() == "failed: connection to http://127.0.0.1:9/v1 failed\n"


def test_markup_in_model_text_is_printed_literally() -> None:
    view, out = _view()
    view.partial("[bold]not bold[/] :smile:")
    view.finish(_result(text="[bold]not bold[/] :smile:"))
    assert out.getvalue() == "[bold]not bold[/] :smile:\n"


def test_tool_summaries_are_short_and_redacted() -> None:
    secret = "sk-" + "Zz9" * 12
    summary = tool_call_summary("frobnicate", {"token": secret, "data": "x" * 500})
    assert secret not in summary and len(summary) <= 100
    assert tool_call_summary("frobnicate", {}) == ""


ESCAPES = ("\x1b]0;pwned\x07\x1b]52;c;ZXZpbA==\x07\x1b[2J\x1b[H\x1b[31mred\x1b[0m"
           "\x1b]8;;http://evil.example\x1b\\link\x1b]8;;\x1b\\\x9b2J\u202ecba\x07\x08\r")


def test_escape_sequences_from_tools_and_models_never_reach_the_terminal() -> None:
    # issue 31: tool and MCP output (and a model repeating it) reached the terminal raw
    view, out = _view()
    view.partial("said: " + ESCAPES[:9])   # a sequence cut across two streamed chunks
    view.partial("said: " + ESCAPES)
    view.event(AgentEvent("tool", {"phase": "start", "name": "exec\x1b[2J", "toolCallId": "c",
                                   "args": {"command": "printf '\x1b[2J'"}}))
    view.event(AgentEvent("tool", {"phase": "result", "name": "exec", "toolCallId": "c",
                                   "isError": True, "preview": ESCAPES + " [bold]x[/]"}))
    view.finish(_result(terminal="failed", error="bad " + ESCAPES))
    shown = out.getvalue()
    assert not any(ch in shown for ch in "\x1b\x07\x08\r\x9b\u202e"), repr(shown)
    assert "red" in shown and "link" in shown and "[bold]x[/]" in shown


class _Writes(io.StringIO):
    """A console's file that records each write, as the prompt's stdout proxy sees them."""

    def __init__(self) -> None:
        super().__init__()
        self.writes: list[str] = []

    def write(self, text: str) -> int:
        self.writes.append(text)
        return super().write(text)


def test_above_a_live_prompt_the_reply_streams_whole_lines() -> None:
    """A prompt redrawn after a write that ends mid-line would cut the line: the reply
    is written a line at a time, the rest of the last line when the turn ends or a tool
    line follows."""
    out = _Writes()
    view = TurnView(Console(file=out, width=200, color_system=None, force_terminal=False),
                    home_dir="/home/someone", whole_lines=True)
    for text in ("Hello fr", "Hello from the s", "Hello from the script!\nSecond l",
                 "Hello from the script!\nSecond line"):
        view.partial(text)
    assert "".join(out.writes) == "Hello from the script!\n"
    view.event(AgentEvent("tool", {"phase": "start", "name": "write", "toolCallId": "c1",
                                   "args": {"path": "/home/someone/n.md", "content": "a"}}))
    view.partial("Done")
    view.finish(_result(text="Done"))
    assert out.getvalue().splitlines() == [
        "Hello from the script!", "Second line", "tool write to ~/n.md (1 chars)", "Done"]
