"""`NativeTurn`: what one turn of a process-owning harness keeps and settles.

A harness that drives a native runtime (a CLI agent, an ACP agent) gathers the same record
in every turn: the messages it settled into the transcript (mirrored with idempotency
keys), the assistant texts, one meta per tool call and the last tool error the host
answered; and it reports events and settled tool calls the same way. A turn class
derives from this and adds only what its runtime speaks.
"""

from __future__ import annotations

import asyncio
import inspect
import time
from collections.abc import Mapping
from typing import Any, Literal

from clawharness.harness.messages import ContentBlock, Message
from clawharness.harness.tool_terminal import report_tool_terminal, tool_observation
from clawharness.harness.types import AgentEvent, AttemptParams

__all__ = ["NativeTurn"]


def _now_ms() -> int:
    return int(time.time() * 1000)


class NativeTurn:
    """The record of one turn, and the ways it settles messages and tool calls."""

    def __init__(self, params: AttemptParams) -> None:
        self.p = params
        self.new_messages: list[Message] = []
        self.assistant_texts: list[str] = []
        self.tool_metas: list[dict[str, Any]] = []
        self.last_tool_error: dict[str, Any] | None = None
        #: why the turn was stopped from outside (`wait_for_stop`), None while it was not
        self.stop_kind: Literal["aborted", "timeout"] | None = None

    async def wait_for_stop(self) -> None:
        """Return once the attempt is aborted or its deadline passes (`stop_kind` says
        which); the caller then stops its runtime as the runtime's protocol asks."""
        p = self.p
        loop = asyncio.get_running_loop()
        timeout = None if p.deadline is None else max(0.0, p.deadline - loop.time())
        try:
            await asyncio.wait_for(p.abort.wait(), timeout)
            self.stop_kind = "aborted"
        except TimeoutError:
            self.stop_kind = "timeout"

    async def emit(self, stream: str, data: Mapping[str, Any]) -> None:
        """An agent event to `params.on_agent_event` (when the host listens)."""
        sink = self.p.on_agent_event
        if sink is not None:
            delivered = sink(AgentEvent(stream, data))
            if inspect.isawaitable(delivered):
                await delivered

    async def settle(self, message: Message, key: str) -> None:
        """`message` into the transcript (mirrored under idempotency `key`) and the record."""
        if self.p.mirror is not None:
            await self.p.mirror([{**message, "__meta": {"idempotencyKey": key}}])
        self.new_messages.append(message)

    async def settle_tool_result(self, *, tool_call_id: str, tool_name: str,
                                 arguments: Mapping[str, Any], text: str, is_error: bool,
                                 execution_started: bool, refusal_reason: str | None,
                                 details: Any, key: str, details_in_message: bool = True) -> None:
        """One settled tool call: reported to `observe_tool_terminal` (a call refused before
        it started fails with `refusal_reason`), its meta kept, its `toolResult` message
        settled under `key`, and a `tool` result event emitted."""
        content: list[ContentBlock] = [{"type": "text", "text": text}]
        result: dict[str, Any] = {"content": content, "isError": is_error}
        if details is not None:
            result["details"] = details
        self.last_tool_error = await report_tool_terminal(
            self.p.observe_tool_terminal, tool_observation(
                tool_call_id=tool_call_id, tool_name=tool_name, arguments=arguments,
                execution_started=execution_started, is_error=is_error, result=result,
                failure_error=refusal_reason if not execution_started and refusal_reason
                else text),
            self.last_tool_error)
        self.tool_metas.append({"toolName": tool_name, "toolCallId": tool_call_id,
                                "isError": is_error})
        message: Message = {
            "role": "toolResult", "toolCallId": tool_call_id, "toolName": tool_name,
            "content": content, "isError": is_error, "timestamp": _now_ms()}
        if details is not None and details_in_message:
            message["details"] = details
        await self.settle(message, key)
        await self.emit("tool", {"phase": "result", "name": tool_name, "toolCallId": tool_call_id,
                                 "isError": is_error})
