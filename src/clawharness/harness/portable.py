"""Portable sessions: what a native harness offers so a conversation can move between
its runtime and the host (docs/portable-sessions.md).

Two optional capabilities of a harness (read with `getattr`, like its session hooks):

- `adopt_native_session(AdoptRequest) -> NativeAdoption`: read a session the runtime
  keeps (a file, or what the runtime answers for an id), as host transcript messages
  each with a stable key (`NativeEntry`), and say how to bind it. Reading writes
  nothing; `NativeAdoption.bind(session_key, session_id)` then makes the session
  resumable from the harness (a copy where the runtime looks, the binding row) and
  `unbind()` takes back exactly what `bind` did. The host stores the entries (keyed,
  so adopting again adds only what is new) and calls `bind` in one all-or-nothing step.
- `handoff_native_session(HandoffRequest) -> NativeHandoff`: make a native session
  holding the host transcript, in the runtime's own format, where the runtime's own
  CLI resumes it, and say the command that does.

A harness refuses what it cannot do with `NativeSessionUnsupportedError`, input that is
not its runtime's session with `NativeSessionFormatError` and an id or path it cannot
find with `NativeSessionNotFoundError` (`clawharness.errors`), each naming what and
where. `read_session_lines` reads a JSON-lines session file with those errors.
"""

from __future__ import annotations

import json
import os
import shlex
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final, Literal, Protocol

from clawharness.errors import (
    InputLimitError,
    NativeSessionFormatError,
    NativeSessionNotFoundError,
    NativeSessionUnsupportedError,
)
from clawharness.harness.messages import Message
from clawharness.limits import MAX_NATIVE_FRAME_BYTES, check_size, loads_bounded

__all__ = [
    "MAX_SESSION_FILE_BYTES",
    "PORTABLE_RUNTIMES",
    "AdoptRequest",
    "HandoffRequest",
    "NativeAdoption",
    "NativeEntry",
    "NativeHandoff",
    "PortableSessions",
    "portable_runtime",
    "read_session_lines",
]

#: the largest native session file read whole (a long Claude Code session with big tool
#: outputs runs to tens of MB)
MAX_SESSION_FILE_BYTES: Final = 512 * 1024 * 1024
#: a tool call's arguments, and its result, folded into a handed-off reply at most
_FOLDED_CHARS: Final = 4_000
#: an assistant reply that failed or was aborted was never an answer (as in the recap)
_UNANSWERED: Final = frozenset({"error", "aborted"})


@dataclass(frozen=True, slots=True)
class NativeEntry:
    """One message of a native session, as the host transcript stores it. `key` names it
    within its native session and never changes (a message id, a line's uuid), so a
    message adopted twice is stored once."""

    key: str
    message: Message


@dataclass(frozen=True, slots=True)
class AdoptRequest:
    """What to adopt (`source`: a file path or the runtime's own id for a session) and
    for whom: the agent, its workspace (where the adopted session goes on), the host's
    state dir, the host's environment (where a runtime's user-level home is named, e.g.
    `CLAUDE_CONFIG_DIR`, `CODEX_HOME`, `HOME`), `home` (look in this runtime home
    instead) and `agent_name` (the ACP agent of `acp/<name>`)."""

    source: str
    agent_id: str
    workspace_dir: str
    state_dir: str
    env: Mapping[str, str] = field(default_factory=dict)
    home: str | None = None
    agent_name: str | None = None


@dataclass(frozen=True, slots=True)
class NativeAdoption:
    """A native session, read and ready to bind.

    `entries` in conversation order; `bound_keys`: the host session keys whose binding
    already names this native session; `model_ref` (`provider/model`) it ran on, when
    known; `cwd`: where it ran; `left_out`: what of it the host transcript does not
    carry (one note each). `bind(session_key, session_id)` makes the next turn of that
    host session resume it natively, and refuses (`ConditionalWriteConflict`) a binding
    that names another native session meanwhile; `unbind()` undoes that `bind`."""

    harness_id: str
    native_session_id: str
    entries: tuple[NativeEntry, ...]
    source: str
    bind: Callable[[str, str], Awaitable[None]]
    unbind: Callable[[], Awaitable[None]]
    bound_keys: tuple[str, ...] = ()
    model_ref: str | None = None
    cwd: str | None = None
    left_out: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class HandoffRequest:
    """A host session's transcript (`history`, oldest first) to hand to the runtime: the
    native session runs in `cwd`; `home` is the runtime home to write it into (None: the
    user's own, from `env`); `agent_name`: the ACP agent; `model_id`: the model the host
    session ran on, when the runtime can use it."""

    agent_id: str
    session_key: str
    history: tuple[Message, ...]
    cwd: str
    state_dir: str
    env: Mapping[str, str] = field(default_factory=dict)
    home: str | None = None
    agent_name: str | None = None
    model_id: str | None = None

    def conversation(self) -> tuple[tuple[Literal["user", "assistant"], str], ...]:
        """The history as alternating user and assistant texts, the shape every runtime
        can be given: a tool call and its result are folded into the reply that made
        them (`[called <tool> with <args>]`, `[<tool> returned: <output>]`), failed and
        aborted replies and empty messages are left out, and consecutive messages of one
        role are joined."""
        turns: list[tuple[Literal["user", "assistant"], str]] = []

        def add(role: Literal["user", "assistant"], text: str) -> None:
            text = text.strip()
            if not text:
                return
            if turns and turns[-1][0] == role:
                turns[-1] = (role, f"{turns[-1][1]}\n\n{text}")
            else:
                turns.append((role, text))

        for message in self.history:
            role = message.get("role")
            if role == "user":
                add("user", _blocks_text(message.get("content"), tool_calls=False))
            elif role == "assistant" and message.get("stopReason") not in _UNANSWERED:
                add("assistant", _blocks_text(message.get("content"), tool_calls=True))
            elif role == "toolResult":
                name = message.get("toolName") or "the tool"
                failed = " (failed)" if message.get("isError") is True else ""
                output = _cut(_blocks_text(message.get("content"), tool_calls=False))
                add("assistant", f"[{name} returned{failed}: {output or '(no output)'}]")
        return tuple(turns)


@dataclass(frozen=True, slots=True)
class NativeHandoff:
    """A native session made from a host transcript: its id, the file that holds it
    (`location`), the `command` (argv) that resumes it, run in `cwd` with `env` (the
    variables the command needs beyond the user's own, e.g. a runtime home that is not
    the default), how many messages it `carried`, and what it `left_out`."""

    harness_id: str
    native_session_id: str
    location: str
    command: tuple[str, ...]
    cwd: str
    env: Mapping[str, str] = field(default_factory=dict)
    carried: int = 0
    left_out: tuple[str, ...] = ()

    def shell(self) -> str:
        """The one shell line that resumes it: `cd <cwd> && [VAR=...] <command>`."""
        env = " ".join(f"{k}={shlex.quote(v)}" for k, v in sorted(self.env.items()))
        command = " ".join(shlex.quote(part) for part in self.command)
        return f"cd {shlex.quote(self.cwd)} && {env + ' ' if env else ''}{command}"

    def to_json(self) -> dict[str, Any]:
        """The wire shape (camelCase) `sessions handoff --json` and the gateway answer."""
        return {"runtime": self.harness_id, "nativeSessionId": self.native_session_id,
                "location": self.location, "command": list(self.command), "cwd": self.cwd,
                "env": dict(self.env), "shell": self.shell(), "carried": self.carried,
                "leftOut": list(self.left_out)}


class PortableSessions(Protocol):
    """The two optional capabilities of a harness whose sessions can move."""

    async def adopt_native_session(self, request: AdoptRequest) -> NativeAdoption: ...

    async def handoff_native_session(self, request: HandoffRequest) -> NativeHandoff: ...


def read_session_lines(path: str | os.PathLike[str], *, what: str,
                       max_bytes: int = MAX_SESSION_FILE_BYTES, data: bytes | None = None,
                       ) -> tuple[tuple[int, dict[str, Any]], ...]:
    """The JSON objects of a JSON-lines session file, with their line numbers (from 1;
    blank lines skipped); `data`: the file's bytes, already read (then `path` only
    names it in errors).

    `what` names the format in errors ("a Claude Code session file"). A missing path is
    `NativeSessionNotFoundError`; a directory, an empty file, bytes that are not UTF-8,
    a line that is not a JSON object, or a last line cut off mid-object (a truncated
    file, or one still being written) are `NativeSessionFormatError` naming the file and
    the line; a file or line over its limit is `InputLimitError`. All or nothing: the
    first bad line fails the whole file."""
    file = Path(path)
    if data is None:
        if not file.exists():
            raise NativeSessionNotFoundError(f"{file}: no such file")
        if not file.is_file():
            raise NativeSessionFormatError(f"{file} is not a file, so not {what}")
        check_size(f"{file}", file.stat().st_size, max_bytes)
        data = file.read_bytes()
    check_size(f"{file}", len(data), max_bytes)
    lines = data.split(b"\n")
    ends_whole = data.endswith(b"\n")
    found: list[tuple[int, dict[str, Any]]] = []
    for number, raw in enumerate(lines, start=1):
        if not raw.strip():
            continue
        last = number == len(lines) or (number == len(lines) - 1 and ends_whole)
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise NativeSessionFormatError(
                f"{file}, line {number}: not UTF-8 text ({exc.reason} at byte {exc.start}), "
                f"so this is not {what}") from None
        try:
            value = loads_bounded(text, what=f"{file}, line {number}",
                                  max_size=MAX_NATIVE_FRAME_BYTES)
        except InputLimitError:
            raise
        except ValueError as exc:
            if last and not ends_whole:
                raise NativeSessionFormatError(
                    f"{file}, line {number}: the line is cut off (the file ends in the "
                    "middle of a JSON object: truncated, or still being written); nothing "
                    "was imported", hint="adopt it again once the runtime has finished "
                    "writing it") from None
            raise NativeSessionFormatError(
                f"{file}, line {number}: not JSON ({_short(exc)}), so this is not "
                f"{what}") from None
        if not isinstance(value, dict):
            raise NativeSessionFormatError(
                f"{file}, line {number}: a JSON {type(value).__name__}, not an object, so "
                f"this is not {what}")
        found.append((number, value))
    if not found:
        raise NativeSessionFormatError(f"{file} is empty, so not {what}")
    return tuple(found)


def _short(exc: Exception) -> str:
    text = str(exc)
    return text if len(text) <= 120 else text[:119] + "…"


def _blocks_text(content: Any, *, tool_calls: bool) -> str:
    if isinstance(content, str):
        return content
    if not isinstance(content, Sequence):
        return ""
    parts: list[str] = []
    for block in content:
        if not isinstance(block, Mapping):
            continue
        kind = block.get("type")
        if kind == "text" and isinstance(block.get("text"), str):
            parts.append(block["text"])
        elif kind == "image":
            parts.append("[image]")
        elif kind == "toolCall" and tool_calls:
            arguments = json.dumps(block.get("arguments"), ensure_ascii=False,
                                   sort_keys=True, default=str)
            parts.append(f"[called {block.get('name') or 'a tool'} with {_cut(arguments)}]")
    return "\n".join(p for p in parts if p.strip())


def _cut(text: str, limit: int = _FOLDED_CHARS) -> str:
    text = text.strip()
    return text if len(text) <= limit else text[:limit].rstrip() + " … [cut]"


#: what `--from` / `--to` accept for each harness that can adopt and hand off
PORTABLE_RUNTIMES: Final[Mapping[str, str]] = {
    "claude-code": "claude-cli", "claude": "claude-cli", "claude-cli": "claude-cli",
    "codex": "codex",
}


def portable_runtime(name: str) -> tuple[str, str | None]:
    """`(harness id, ACP agent name or None)` of a runtime as `sessions adopt --from` and
    `sessions handoff --to` name it: `claude-code` (also `claude`, `claude-cli`),
    `codex`, `acp/<agent>`. `NativeSessionUnsupportedError` for anything else."""
    text = name.strip() if isinstance(name, str) else ""
    if text.startswith("acp/") and text[4:].strip():
        return "acp", text[4:].strip()
    harness = PORTABLE_RUNTIMES.get(text.lower())
    if harness is not None:
        return harness, None
    raise NativeSessionUnsupportedError(
        f"unknown runtime {name!r} for a portable session: use claude-code, codex or "
        "acp/<agent>" + (" (name the ACP agent: acp/<agent>)" if text == "acp" else ""))
