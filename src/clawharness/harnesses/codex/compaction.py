"""`/compact` on a Codex session: Codex's own compaction of the bound thread.

The host asks (`CodexHarness.compact`, a `CompactParams` with the session); under the
session's binding lease the bound thread is loaded in an app-server (resumed when no
live process has it), `thread/compact/start` is sent, and the compaction is done when
Codex reports its `contextCompaction` item completed (or the compaction turn ends, or the
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

#: the notifications that end a compaction the host started
_DONE_METHODS = frozenset({"thread/compacted", "turn/completed"})


def compaction_done(note: Notification) -> bool:
    """Whether `note` says the thread's compaction ended."""
    if note.method in _DONE_METHODS:
        return True
    if note.method == "item/completed":
        item = note.params.get("item")
        return isinstance(item, Mapping) and item.get("type") == "contextCompaction"
    return False


class CompactionWatch:
    """A thread listener for the length of one compaction: set once it is done."""

    def __init__(self) -> None:
        self.done = asyncio.Event()
        self.failure: BaseException | None = None
        self.error: str | None = None

    def on_notification(self, note: Notification) -> None:
        if note.method == "error":
            error = note.params.get("error")
            message = error.get("message") if isinstance(error, Mapping) else None
            self.error = str(message or note.params)
        if compaction_done(note):
            self.done.set()

    def on_closed(self, error: CodexProcessExitedError) -> None:
        self.failure = error
        self.done.set()

    async def on_request(self, request: Request) -> Any:
        # a compaction runs no tool and asks for no approval
        return {"decision": "decline"}
