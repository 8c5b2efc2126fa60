"""`NativeTurn`: what one turn of a process-owning harness keeps, settles and returns.

A harness that drives a native runtime (a CLI agent, an ACP agent) gathers the same
record in every turn and settles it the same way; a turn class derives from this and
adds only what its runtime speaks. The record:

- `new_messages`: every message the turn settled into the transcript, in order (each
  also mirrored through `params.mirror`, under an idempotency key from `message_key`);
- `assistant_texts`: the reply texts, in order (each also in an assistant message of
  `new_messages`: `settle` the message, then append its text);
- `tool_calls`: the turn's `ToolCalls` (its `metas` and `last_tool_error` are the
  result's `tool_metas` and `last_tool_error`);
- `usage`: the turn's token totals, a `Usage` (`Usage.zero()`, then `.plus(...)` per
  model call the runtime reports);
- `stop_kind`: "aborted" or "timeout" once `wait_for_stop` saw the attempt stopped.

`result(terminal, ...)` builds the `AttemptResult` from the record.
"""

from __future__ import annotations

import asyncio
import inspect
import weakref
from collections.abc import Mapping
from typing import Any, Literal

from clawharness.harness.messages import Message
from clawharness.harness.types import (
    AgentEvent,
    AttemptParams,
    AttemptResult,
    AttemptTerminal,
)
from clawharness.plugin_sdk._tool_calls import ToolCallOutcome, ToolCalls
from clawharness.records import ToolCallMeta, Usage

__all__ = ["NativeTurn"]


class _PlaceInto:
    """The tool routine's placement for a native turn, holding the turn weakly: the turn
    owns its routine, so a bound method of the turn there would be a reference cycle,
    and every finished turn (its record, params and messages) would wait for the cyclic
    collector instead of being freed when the harness lets go of it."""

    __slots__ = ("_turn",)

    def __init__(self, turn: NativeTurn) -> None:
        self._turn = weakref.ref(turn)

    async def __call__(self, message: Message, outcome: ToolCallOutcome) -> None:
        turn = self._turn()
        if turn is not None:  # (else the record it would settle into is gone)
            await turn._place_tool_result(message, outcome)


class NativeTurn:
    """The record of one native turn, and the ways it settles messages and tool calls.

    `harness_id` stamps the result; `details_in_message=False` keeps a native tool's
    raw `details` out of its transcript message (the host's observer still gets them)."""

    def __init__(self, params: AttemptParams, *, harness_id: str,
                 details_in_message: bool = True) -> None:
        self.p = params
        self.harness_id = harness_id
        self.new_messages: list[Message] = []
        self.assistant_texts: list[str] = []
        self.usage = Usage.zero()
        self.tool_calls = ToolCalls(params, placement=_PlaceInto(self),
                                    details_in_message=details_in_message)
        #: why the turn was stopped from outside (`wait_for_stop`), None while it was not
        self.stop_kind: Literal["aborted", "timeout"] | None = None

    @property
    def tool_metas(self) -> list[ToolCallMeta]:
        """One meta per settled tool call (`AttemptResult.tool_metas`)."""
        return self.tool_calls.metas

    @property
    def last_tool_error(self) -> dict[str, Any] | None:
        """The turn's last tool error as the host's observer answered it."""
        return self.tool_calls.last_tool_error

    def message_key(self, suffix: str) -> str:
        """The idempotency key a settled message is mirrored under: unique in the
        session, and the same when the same native item is settled again (override to
        key by the native session: `<harness>:<native id>:<suffix>`)."""
        return f"{self.harness_id}:{self.p.run_id}:{suffix}"

    async def wait_for_stop(self) -> None:
        """Return once the attempt is aborted or its deadline passes (`stop_kind` says
        which); the caller then stops its runtime as the runtime's protocol asks."""
        p = self.p
        try:  # a timeout on this task (asyncio.wait_for would wrap the wait in a task)
            async with asyncio.timeout_at(p.deadline):
                await p.abort.wait()
            self.stop_kind = "aborted"
        except TimeoutError:
            self.stop_kind = "timeout"

    async def emit(self, stream: str, data: Mapping[str, Any]) -> None:
        """An agent event to `params.on_agent_event` (when the host listens)."""
        sink = self.p.on_agent_event
        if sink is not None:
            delivered = sink(AgentEvent(stream, data))
            if delivered is not None and inspect.isawaitable(delivered):
                await delivered

    async def settle(self, message: Message, key: str) -> None:
        """`message` into the transcript (mirrored under idempotency `key`) and the record."""
        if self.p.mirror is not None:
            await self.p.mirror([{**message, "__meta": {"idempotencyKey": key}}])
        self.new_messages.append(message)

    async def _place_tool_result(self, message: Message, outcome: ToolCallOutcome) -> None:
        await self.settle(message, self.message_key(f"result:{outcome.call_id}"))

    def result(self, terminal: AttemptTerminal, *, native_session_id: str | None = None,
               usage: bool = True, extra: Mapping[str, object] | None = None) -> AttemptResult:
        """The attempt's result from this record: the settled messages as the snapshot
        (already mirrored when `params.mirror` was given), the reply texts, the last
        assistant message, the tool metas and last tool error, the usage (unless
        `usage=False`: the runtime reports none), `extra["nativeSessionId"]` when a
        native session served the turn, and any further `extra`."""
        last = next((m for m in reversed(self.new_messages) if m["role"] == "assistant"), None)
        more: dict[str, object] = {}
        if native_session_id:
            more["nativeSessionId"] = native_session_id
        more.update(extra or {})
        return AttemptResult(
            terminal=terminal, session_id_used=self.p.session_id,
            messages_snapshot=list(self.new_messages), assistant_texts=self.assistant_texts,
            last_assistant=last, tool_metas=self.tool_metas,
            last_tool_error=self.last_tool_error,
            attempt_usage=self.usage if usage else None,
            agent_harness_id=self.harness_id, transcript_mirrored=self.p.mirror is not None,
            extra=more)
