"""What a line typed into `clawharness chat` means."""

from __future__ import annotations

import pytest

from clawharness.cli.chat_commands import (
    COMMAND_HELP,
    ChatCommand,
    ChatCommandError,
    ChatMessage,
    parse_chat_line,
)


@pytest.mark.parametrize(("line", "expected"), [
    ("hello", ChatMessage("hello")),
    ("  spaced out  ", ChatMessage("spaced out")),
    ("/new", ChatCommand("new")),
    ("/reset", ChatCommand("reset")),
    ("/STATUS", ChatCommand("status")),
    ("/model", ChatCommand("model")),
    ("/model  openai/gpt-5.5 ", ChatCommand("model", "openai/gpt-5.5")),
    ("/compact", ChatCommand("compact")),
    ("/compact the deploy ids ", ChatCommand("compact", "the deploy ids")),
    ("/help", ChatCommand("help")),
    ("/?", ChatCommand("help")),
    ("/exit", ChatCommand("exit")),
    ("/quit", ChatCommand("exit")),
    ("//etc/hosts is what?", ChatMessage("/etc/hosts is what?")),
])
def test_lines_are_messages_or_commands(line: str, expected: object) -> None:
    assert parse_chat_line(line) == expected


def test_a_blank_line_means_nothing() -> None:
    assert parse_chat_line("   ") is None


def test_an_unknown_command_says_how_to_send_it_as_text() -> None:
    with pytest.raises(ChatCommandError, match=r"unknown command /frob; /help .* //"):
        parse_chat_line("/frob now")


def test_a_command_that_takes_no_argument_refuses_one() -> None:
    with pytest.raises(ChatCommandError, match=r"/reset takes no argument \(got 'now'\)"):
        parse_chat_line("/reset now")


def test_help_lists_every_command() -> None:
    listed = {usage.split()[0] for usage, _ in COMMAND_HELP}
    assert listed == {"/new", "/reset", "/compact", "/status", "/model", "/think", "/queue",
                      "/help", "/exit"}


def test_queue_takes_a_mode() -> None:
    assert parse_chat_line("/queue followup") == ChatCommand("queue", "followup")
    assert parse_chat_line("/queue") == ChatCommand("queue")
