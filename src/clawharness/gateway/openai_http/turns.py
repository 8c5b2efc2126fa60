"""Starting an HTTP request's turn on the run service, and streaming it.

A turn started here is a run like the WebSocket `agent` or `chat.send`: it runs through
`Host.run_turn` (transcript, selection, tool policy, approvals asked of connected
operators), it belongs to the run service rather than to the HTTP connection (a client
that disconnects leaves it running to its transcript), and WebSocket subscribers see its
events. `RunStream` turns a run's assistant text into a bounded queue for one SSE
response; a client that stops reading while the queue fills is dropped, not buffered for.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

from clawharness.runs import (
    AssistantText,
    RunEnded,
    RunEvent,
    RunHandle,
    RunOptions,
    RunResult,
    RunService,
)

__all__ = ["MAX_PENDING_BYTES", "MAX_PENDING_EVENTS", "RunStream", "TurnText", "final_text", "start_turn"]

#: stream items waiting for a slow reader before it is dropped
MAX_PENDING_EVENTS: Final = 2048
#: text waiting for a slow reader before it is dropped (one delta is always taken)
MAX_PENDING_BYTES = 1024 * 1024
NO_RESPONSE_TEXT: Final = "No response from OpenClaw."


@dataclass(frozen=True, slots=True)
class TurnText:
    """What an HTTP answer says about a finished run."""

    ok: bool
    text: str
    error: str | None = None
    error_type: str | None = None
    usage: dict[str, Any] | None = None


def start_turn(runs: RunService, *, prefix: str, session_key: str, agent_id: str,
               message: str) -> RunHandle:
    run_id = f"{prefix}_{uuid.uuid4().hex}"
    return runs.start(session_key, message, RunOptions(
        agent_id=agent_id, kind="agent", idempotency_key=run_id, run_id=run_id))


def final_text(ended: RunResult) -> TurnText:
    result = ended.result
    if result is None:
        message = ended.error or "run ended"
        return TurnText(False, "", error=message, error_type="turn_failed")
    if result.terminal == "failed":
        return TurnText(False, "", error=result.error or "the turn failed",
                        error_type=result.error_type, usage=result.usage)
    texts = [str(p.get("text")) for p in result.payloads if p.get("text")]
    text = "\n\n".join(texts) or result.text
    if result.terminal != "ok":
        return TurnText(False, text, error=result.error or f"the turn ended: {result.terminal}",
                        error_type=result.terminal, usage=result.usage)
    return TurnText(True, text or NO_RESPONSE_TEXT, usage=result.usage)


class RunStream:
    """A run's assistant deltas, then its end, as an async iterator for one response."""

    def __init__(self, run: RunHandle, on_overflow: Callable[[], object]) -> None:
        self._run = run
        self._queue: asyncio.Queue[str | None] = asyncio.Queue()
        self._on_overflow = on_overflow
        self._pending_bytes = 0
        self._max_pending_bytes = MAX_PENDING_BYTES
        self.dropped = False
        self.saw_delta = False
        self._unsubscribe = run.subscribe(self._observe)
        if run.done:
            self._queue.put_nowait(None)

    @property
    def run(self) -> RunHandle:
        return self._run

    def _observe(self, event: RunEvent) -> None:
        if isinstance(event, RunEnded):
            self._queue.put_nowait(None)
            return
        if not isinstance(event, AssistantText) or self.dropped:
            return
        delta = event.delta
        if not delta:
            return
        size = len(delta.encode())
        waiting = self._queue.qsize()
        if waiting and (waiting >= MAX_PENDING_EVENTS
                        or self._pending_bytes + size > self._max_pending_bytes):
            self.dropped = True
            self.close()
            self._on_overflow()
            return
        self._pending_bytes += size
        self._queue.put_nowait(delta)

    async def deltas(self) -> Any:
        """Yields each assistant delta; ends when the run settles."""
        while True:
            item = await self._queue.get()
            if item is None:
                return
            self._pending_bytes -= len(item.encode())
            self.saw_delta = True
            yield item

    async def outcome(self) -> RunResult:
        return await self._run.wait()

    def close(self) -> None:
        self._unsubscribe()
