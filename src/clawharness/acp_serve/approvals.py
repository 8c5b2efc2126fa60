"""The host's approval questions (exec approvals, a mode's "ask first", any gate that asks
a person) as ACP `session/request_permission` to the client of the session.

The options offered: allow once, always allow (only when the answer can cover more than
this call: the programs of an exec command, or the tool), and reject. The client's
answer is read by the option's `kind`; a cancelled request (the user cancelled the turn)
or a session this connection no longer holds refuses the call. What an "always allow"
answer granted holds for the rest of the ACP session in this process (later turns are
not asked again for the same programs or tool).
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from acp import RequestError
from acp.interfaces import Client
from acp.schema import AllowedOutcome, PermissionOption, ToolCallUpdate

from clawharness.acp_serve.session import AcpSession
from clawharness.acp_serve.updates import tool_kind, tool_title
from clawharness.harness.capabilities import ApprovalDecision, ApprovalRequest

__all__ = ["ClientApprovals", "permission_options"]

log = logging.getLogger("clawharness.acp")

_DECISIONS: dict[str, ApprovalDecision] = {
    "allow_once": "allow-once", "allow_always": "allow-always",
    "reject_once": "deny", "reject_always": "deny",
}


def permission_options(request: ApprovalRequest) -> list[PermissionOption]:
    """What the person may answer to `request`."""
    options = [PermissionOption(option_id="allow-once", name="Allow once", kind="allow_once")]
    subject = request.subject
    if subject.grant_keys:
        label = subject.grant_label or f"the {request.tool_name} tool"
        options.append(PermissionOption(option_id="allow-always",
                                        name=f"Always allow {label} in this session",
                                        kind="allow_always"))
    options.append(PermissionOption(option_id="reject", name="Reject", kind="reject_once"))
    return options


class ClientApprovals:
    """`ApprovalGate` asking the client of the request's ACP session."""

    def __init__(self, client: Client, sessions: Callable[[str], AcpSession | None]) -> None:
        self._client = client
        self._sessions = sessions

    async def decide(self, request: ApprovalRequest) -> ApprovalDecision | None:
        session = self._sessions(request.session_key)
        if session is None:
            return None
        if request.run_id in session.cancelled:
            return "deny"
        keys = request.subject.grant_keys
        if keys and keys <= session.grants:
            return "allow-always"  # granted by an earlier answer in this session
        await session.sender.flush()  # the client knows the tool call asked about
        options = permission_options(request)
        args = dict(request.arguments)
        call = ToolCallUpdate(
            tool_call_id=request.tool_call_id or f"approval-{request.run_id}",
            title=tool_title(request.tool_name, args), kind=tool_kind(request.tool_name),
            status="pending", raw_input=args,
            field_meta={"clawharness": {"reason": request.reason, "cwd": request.cwd,
                                        "programs": list(request.subject.programs)}})
        try:
            response = await self._client.request_permission(
                session_id=session.id, tool_call=call, options=options)
        except (RequestError, ConnectionError) as exc:
            log.warning("session/request_permission failed: %s", exc)
            return None
        outcome = response.outcome
        if not isinstance(outcome, AllowedOutcome):
            return "deny"  # cancelled: the turn is being cancelled
        chosen = next((o for o in options if o.option_id == outcome.option_id), None)
        if chosen is None:
            log.warning("the client chose an option it was not offered: %r",
                        outcome.option_id)
            return "deny"
        decision = _DECISIONS.get(chosen.kind, "deny")
        if decision == "allow-always" and keys:
            session.grants |= keys
        return decision
