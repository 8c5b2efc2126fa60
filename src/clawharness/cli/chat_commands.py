"""What a line typed into `clawharness chat` means: a message, a slash command, or nothing.

Pure and synchronous: the chat loop does the work. A line starting with `/` is a command;
`//text` sends `/text` as a message.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, Literal

from clawharness.errors import ClawHarnessError

__all__ = [
    "COMMAND_HELP",
    "ChatCommand",
    "ChatCommandError",
    "ChatMessage",
    "parse_chat_line",
]

CommandName = Literal["new", "reset", "compact", "status", "model", "think", "queue", "help",
                      "exit"]

#: (usage, what it does), in the order `/help` lists them
COMMAND_HELP: Final[tuple[tuple[str, str], ...]] = (
    ("/new", "start a fresh session under the same key (the old transcript is kept)"),
    ("/reset", "the same as /new"),
    ("/compact [focus]", "summarise the oldest history now (the transcript keeps it all)"),
    ("/status", "session, model, runtime and why that runtime was selected"),
    ("/model [ref]", "show the model, or use `ref` (provider/model) for the next turns"),
    ("/think [level]", "show the thinking level, or set this session's: off, minimal, low, "
                       "medium, high, xhigh (default: back to the agent's)"),
    ("/queue [mode]", "show or set how a message typed while a turn runs is sent: steer, "
                      "followup, collect, interrupt (default: the agent's queue.mode)"),
    ("/help", "this list"),
    ("/exit", "leave the chat (also /quit or Ctrl-D)"),
)

_NAMES: Final[dict[str, CommandName]] = {
    "new": "new",
    "reset": "reset",
    "compact": "compact",
    "status": "status",
    "model": "model",
    "think": "think",
    "thinking": "think",
    "t": "think",
    "queue": "queue",
    "help": "help",
    "?": "help",
    "exit": "exit",
    "quit": "exit",
    "q": "exit",
}
# commands that take no argument: a stray one is more likely a typo than intent
_NO_ARGUMENT: Final = frozenset({"new", "reset", "status", "help", "exit"})


class ChatCommandError(ClawHarnessError):
    """A slash command the chat does not know, or one used the wrong way."""

    code = "chat_command_invalid"


@dataclass(frozen=True, slots=True)
class ChatCommand:
    """A slash command and its argument (None when none was given)."""

    name: CommandName
    argument: str | None = None


@dataclass(frozen=True, slots=True)
class ChatMessage:
    """Text to send to the agent as one turn."""

    text: str


def parse_chat_line(line: str) -> ChatCommand | ChatMessage | None:
    """The meaning of one typed line; None for a blank line."""
    stripped = line.strip()
    if not stripped:
        return None
    if stripped.startswith("//"):
        return ChatMessage(stripped[1:])
    if not stripped.startswith("/"):
        return ChatMessage(stripped)
    word, _, rest = stripped[1:].partition(" ")
    name = _NAMES.get(word.lower())
    if name is None:
        raise ChatCommandError(
            f"unknown command /{word}; /help lists the commands "
            f"(start the line with // to send it as a message)")
    argument = rest.strip() or None
    if argument is not None and name in _NO_ARGUMENT:
        raise ChatCommandError(f"/{word} takes no argument (got {argument!r})")
    return ChatCommand(name, argument)
