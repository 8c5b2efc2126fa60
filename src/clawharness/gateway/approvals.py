"""Approvals asked during a turn, answered by connected operator clients.

When tool policy asks for approval (for instance `tools.exec.ask: "always"`), the turn's
`ApprovalGate` is a `GatewayApprovalGate`: it records a pending approval, broadcasts
`plugin.approval.requested {id, request, createdAtMs, expiresAtMs}` to the connections
holding `operator.approvals` (or admin), and waits. `plugin.approval.resolve {id,
decision}` from any such client decides it and broadcasts `plugin.approval.resolved`.
With no approver connected the gate answers None (a refusal) at once; an unanswered
approval expires after its timeout, also a refusal. These are the shapes OpenClaw's TUI
reads (`parseTuiPluginApproval`).
"""

from __future__ import annotations

import asyncio
import json
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Final

from clawharness.gateway.protocol import GatewayError
from clawharness.harness import BUDGET_EXTEND_TOOL
from clawharness.harness.capabilities import ApprovalDecision, ApprovalRequest
from clawharness.tools.approvals import visible

__all__ = ["ALLOWED_DECISIONS", "ApprovalBroker", "GatewayApprovalGate"]

ALLOWED_DECISIONS: Final[tuple[ApprovalDecision, ...]] = ("allow-once", "allow-always", "deny")
#: a budget's extension is a yes or no for this turn: "always" is not offered
EXTEND_DECISIONS: Final[tuple[ApprovalDecision, ...]] = ("allow-once", "deny")
DEFAULT_APPROVAL_TIMEOUT_SECONDS: Final = 120.0
_NOT_FOUND_DETAILS: Final = {
    "reason": "APPROVAL_NOT_FOUND",
    "remediation": "Re-request the action; pending approvals are cleared after expiry or restart.",
}

#: publish(event, payload) -> how many connections it reached
Publish = Callable[[str, dict[str, Any]], int]


@dataclass(slots=True)
class _Pending:
    id: str
    request: dict[str, Any]
    created_at_ms: int
    expires_at_ms: int
    answer: asyncio.Future[ApprovalDecision | None] = field(repr=False)

    def wire(self) -> dict[str, Any]:
        return {"id": self.id, "request": self.request, "createdAtMs": self.created_at_ms,
                "expiresAtMs": self.expires_at_ms}


def allowed_decisions(tool_name: str) -> tuple[ApprovalDecision, ...]:
    """What an approver may answer a question about `tool_name`."""
    return EXTEND_DECISIONS if tool_name == BUDGET_EXTEND_TOOL else ALLOWED_DECISIONS


def _describe(request: ApprovalRequest) -> str:
    args = request.arguments
    command = args.get("command") if isinstance(args, dict) else None
    if isinstance(command, str) and command:
        detail = command
    else:
        try:
            detail = json.dumps(dict(args), ensure_ascii=False, default=str)
        except (TypeError, ValueError):
            detail = str(args)
    detail = visible(detail if len(detail) <= 400 else detail[:399] + "…")
    if request.subject.programs:
        detail += f" (runs {visible(', '.join(request.subject.programs))})"
    return f"{visible(request.reason)}: {detail}" if request.reason else detail


class ApprovalBroker:
    """Pending approvals of this gateway; `publish` reaches the approver connections."""

    def __init__(self, publish: Publish, *,
                 timeout_seconds: float = DEFAULT_APPROVAL_TIMEOUT_SECONDS) -> None:
        self._publish = publish
        self._timeout = timeout_seconds
        self._pending: dict[str, _Pending] = {}
        self.has_approvers: Callable[[], bool] = lambda: True

    def pending(self) -> list[dict[str, Any]]:
        now = int(time.time() * 1000)
        return [p.wire() for p in sorted(self._pending.values(), key=lambda p: p.created_at_ms)
                if p.expires_at_ms > now]

    async def ask(self, request: ApprovalRequest, *, agent_id: str) -> ApprovalDecision | None:
        """Broadcast the question and wait for an operator's answer (None: no answer)."""
        if not self.has_approvers():
            return None
        created = int(time.time() * 1000)
        approval_id = f"plugin:{uuid.uuid4()}"
        wire_request: dict[str, Any] = {
            "pluginId": "clawharness",
            "title": ("Extend a budget?" if request.tool_name == BUDGET_EXTEND_TOOL
                      else f"Allow {request.tool_name}?"),
            "description": _describe(request),
            "severity": "warning",
            "toolName": request.tool_name,
            "toolCallId": request.tool_call_id,
            "allowedDecisions": list(allowed_decisions(request.tool_name)),
            "agentId": agent_id,
            "sessionKey": request.session_key,
            "runId": request.run_id,
        }
        loop = asyncio.get_running_loop()
        pending = _Pending(approval_id, wire_request, created,
                           created + int(self._timeout * 1000), loop.create_future())
        self._pending[approval_id] = pending
        try:
            if self._publish("plugin.approval.requested", pending.wire()) == 0:
                return None
            try:
                async with asyncio.timeout(self._timeout):
                    return await asyncio.shield(pending.answer)
            except TimeoutError:
                self._withdraw(pending, "timeout")
                return None
            except asyncio.CancelledError:  # the turn was aborted while it waited
                self._withdraw(pending, "cancelled")
                raise
        finally:
            self._pending.pop(approval_id, None)

    def _withdraw(self, pending: _Pending, why: str) -> None:
        """Tell approvers a question is no longer pending (expired or its turn ended)."""
        if self._pending.pop(pending.id, None) is None:
            return
        self._publish("plugin.approval.resolved", {
            "id": pending.id, "decision": "deny", "resolvedBy": why,
            "ts": int(time.time() * 1000), "request": pending.request,
        })

    def resolve(self, approval_id: str, decision: str, *, resolved_by: str) -> dict[str, Any]:
        """Answer a pending approval; raises GatewayError the way the original does."""
        pending = self._pending.get(approval_id)
        if pending is None or pending.answer.done():
            raise GatewayError("INVALID_REQUEST", "unknown or expired approval id",
                               details=dict(_NOT_FOUND_DETAILS))
        allowed = pending.request.get("allowedDecisions", ALLOWED_DECISIONS)
        if decision not in allowed:
            raise GatewayError("INVALID_REQUEST",
                               f"{decision} is unavailable for this plugin approval",
                               details={"allowedDecisions": list(allowed)})
        chosen: ApprovalDecision = (
            "allow-once" if decision == "allow-once"
            else "allow-always" if decision == "allow-always" else "deny"
        )
        pending.answer.set_result(chosen)
        self._publish("plugin.approval.resolved", {
            "id": approval_id, "decision": chosen, "resolvedBy": resolved_by,
            "ts": int(time.time() * 1000), "request": pending.request,
        })
        return {"ok": True}

    def cancel_all(self) -> None:
        for pending in list(self._pending.values()):
            if not pending.answer.done():
                pending.answer.set_result(None)


class GatewayApprovalGate:
    """The `ApprovalGate` a gateway turn runs with: asks the connected operators."""

    def __init__(self, broker: ApprovalBroker, agent_id: str) -> None:
        self._broker = broker
        self._agent_id = agent_id

    async def decide(self, request: ApprovalRequest) -> ApprovalDecision | None:
        return await self._broker.ask(request, agent_id=self._agent_id)
