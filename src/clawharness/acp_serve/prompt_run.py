"""One prompt's run as its client sees it: the run's events as the session's updates
while it runs, and its answer once it ended (the stop reason, the usage, the context
meter and the session's cost)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from acp import RequestError
from acp.schema import PromptResponse, StopReason

from clawharness.acp_serve.answers import acp_usage, context_update, error_of
from clawharness.acp_serve.session import AcpSession
from clawharness.acp_serve.updates import (
    agent_text,
    plan_update,
    thought_text,
    tool_finished,
    tool_started,
)
from clawharness.errors import ClawHarnessError
from clawharness.runs import AssistantText, RunEvent, RunProgress, RunResult

__all__ = ["PromptRun"]


@dataclass(slots=True)
class PromptRun:
    """One prompt's running state: the assistant text the client has seen, and the
    tokens in context at its last model call (its `totalTokens`), once one reported."""

    session: AcpSession
    sent: str = ""
    context_tokens: int | None = None

    def on_event(self, event: RunEvent) -> None:
        """A run event as the session's updates (called as it happens: never blocks)."""
        session = self.session
        if isinstance(event, AssistantText):
            if event.delta:
                session.sender.send(agent_text(event.delta))
                self.sent = event.text
            return
        if not isinstance(event, RunProgress):
            return
        data = event.data
        if event.stream == "tool":
            phase = data.get("phase")
            if phase == "start":
                start = tool_started(data, session.cwd)
                if start is not None:
                    if start.content:
                        session.rich_calls.add(start.tool_call_id)
                    session.sender.send(start)
            elif phase == "result":
                call_id = str(data.get("toolCallId"))
                done = tool_finished(data, keep_content=call_id in session.rich_calls)
                session.rich_calls.discard(call_id)
                if done is not None:
                    session.sender.send(done)
        elif event.stream == "thinking":
            delta = data.get("delta", data.get("text"))
            if isinstance(delta, str) and delta:
                session.sender.send(thought_text(delta))
        elif event.stream == "plan":
            plan = plan_update(data)
            if plan is not None:
                session.sender.send(plan)
        elif event.stream == "usage":  # one model call's usage: the context meter's reading
            total = data.get("totalTokens")
            if isinstance(total, int) and not isinstance(total, bool):
                self.context_tokens = total

    def answer(self, ended: RunResult, *, cancelled: bool,
               context_window: Callable[[str], int | None]) -> PromptResponse:
        """The prompt's answer once its run ended: the stop reason, or the turn's failure
        as an error (what the turn said is sent first)."""
        result = ended.result
        if result is not None and result.model:
            self.session.add_cost(result.cost_usd)
            meter = context_update(self.context_tokens, context_window(result.model),
                                   self.session.cost_usd)
            if meter is not None:
                self.session.sender.send(meter)
        if cancelled:
            return PromptResponse(stop_reason="cancelled")
        if result is None:
            exc = ended.exception
            if isinstance(exc, ClawHarnessError):
                raise error_of(exc)
            raise RequestError(-32603, f"the turn failed: {ended.error or 'it ended early'}",
                               {"message": ended.error})
        if result.text and not result.silent and result.text != self.sent:
            # what the runtime did not stream (or finished differently) still reaches the user
            rest = (result.text[len(self.sent):] if result.text.startswith(self.sent)
                    else result.text)
            self.session.sender.send(agent_text(rest))
            self.sent = result.text
        stop: StopReason = "end_turn"
        if result.terminal == "aborted":
            stop = ("max_turn_requests" if "max steps" in (result.error or "")
                    else "cancelled")
        elif result.terminal != "ok":
            details = dict(result.error_details or {})
            raise RequestError(-32603, f"the turn failed: {result.error or result.terminal}",
                               {"type": result.error_type, "message": result.error,
                                "runId": result.run_id, **details})
        return PromptResponse(stop_reason=stop, usage=acp_usage(result.usage))
