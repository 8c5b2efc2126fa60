"""Where a turn's file and exec tools do their work, when a front lends them somewhere
else than this host's own file system and shell.

An editor driving the host over ACP offers its own file access (`fs/read_text_file`,
`fs/write_text_file`: it sees the edits, unsaved buffers included) and its terminals
(`terminal/create`: the user sees the command run). The front states them as
`ToolBackends` on the turn (`TurnOptions.tool_backends`); the host's `read`, `write`,
`edit` and `exec` then go through them (`clawharness.tools.builtin.delegated`), after
the same tool policy and approvals, and only where the session's sandbox does not apply
(a sandboxed command never leaves the sandbox for a client's terminal).

Paths handed to a backend are absolute and inside the turn's workspace (the host checks
them first); a backend raises `ToolError` for what it cannot do.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from clawharness.harness.tool_spec import ToolCallContext

__all__ = ["CommandOutcome", "CommandRunner", "FileAccess", "ToolBackends"]


class FileAccess(Protocol):
    """Text files read and written by someone else (an editor)."""

    async def read_text(self, path: str, context: ToolCallContext) -> str:
        """The whole text of the file at absolute `path` (as the editor has it)."""
        ...

    async def write_text(self, path: str, content: str, context: ToolCallContext) -> None:
        """Create or replace the file at absolute `path` with `content`."""
        ...


@dataclass(frozen=True, slots=True)
class CommandOutcome:
    """What a command run elsewhere did: its output (its last characters when
    `truncated`), its exit code (None when it was killed), whether it timed out."""

    output: str
    exit_code: int | None
    timed_out: bool = False
    truncated: bool = False
    #: the signal that ended it, when one did (e.g. "SIGKILL")
    signal: str | None = None


class CommandRunner(Protocol):
    """Shell commands run by someone else (an editor's terminal)."""

    async def run(self, command: str, *, cwd: str, timeout_sec: float, max_output_chars: int,
                  context: ToolCallContext) -> CommandOutcome:
        """Run `command` with bash in `cwd`; kill it after `timeout_sec` seconds or when
        `context.abort` is set."""
        ...


@dataclass(frozen=True, slots=True)
class ToolBackends:
    """The backends one turn's tools use instead of this host's (None: the host's)."""

    files: FileAccess | None = None
    commands: CommandRunner | None = None

    @property
    def empty(self) -> bool:
        return self.files is None and self.commands is None
