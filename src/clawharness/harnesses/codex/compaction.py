"""`/compact` on a Codex session: Codex's own compaction of the bound thread.

The host asks (`CodexHarness.compact`, a `CompactParams` with the session); under the
session's binding lease the bound thread is loaded in an app-server (resumed when no
live process has it), `thread/compact/start` is sent, and the compaction is done when
Codex's compaction turn completes (or, with no turn, its `contextCompaction` item or the
deprecated `thread/compacted` arrives). Codex owns its thread: the host transcript gets
no summary; a session with no thread yet has nothing to compact.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any

from clawharness.harnesses.codex.errors import CodexProcessExitedError
from clawharness.harnesses.codex.protocol import Notification, Request

__all__ = ["CompactionWatch", "compaction_done"]

def compaction_done(note: Notification) -> bool:
    """Whether `note` says the thread's context was compacted (the `contextCompaction`
    item completed, or the deprecated `thread/compacted`)."""
    if note.method == "thread/compacted":
        return True
    if note.method == "item/completed":
        item = note.params.get("item")
        return isinstance(item, Mapping) and item.get("type") == "contextCompaction"
    return False


class CompactionWatch:
    """A thread listener for the length of one compaction: set once it is done.

    Codex runs a compaction as a turn of its own; the thread takes no new turn until that
    turn has completed (`turn/start` is refused with `ActiveTurnNotSteerable`), so once a
    turn started, only `turn/completed` ends the watch. Without a turn (older Codex),
    the compaction's own report does."""

    def __init__(self) -> None:
        self.done = asyncio.Event()
        self.failure: BaseException | None = None
        self.error: str | None = None
        self._turn_running = False

    def on_notification(self, note: Notification) -> None:
        if note.method == "error":
            error = note.params.get("error")
            message = error.get("message") if isinstance(error, Mapping) else None
            self.error = str(message or note.params)
        if note.method == "turn/started":
            self._turn_running = True
        elif note.method == "turn/completed" or (
                compaction_done(note) and not self._turn_running):
            self.done.set()

    def on_closed(self, error: CodexProcessExitedError) -> None:
        self.failure = error
        self.done.set()

    async def on_request(self, request: Request) -> Any:
        # a compaction runs no tool and asks for no approval
        return {"decision": "decline"}
