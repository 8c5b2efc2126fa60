"""The approval bridge: Codex's approval requests, decided by the host's tool policy.

An approval request that belongs to the current thread and turn is put to
`host_capabilities.run_before_tool_call(...)` as the host tool it amounts to (`exec` for
commands and permission grants, `apply_patch` for file changes), with the native
operation's working directory. The host's verdict maps to the wire (digest §7):

| request     | cancelled | denied / unavailable | approved-session                  | approved-once |
|-------------|-----------|----------------------|-----------------------------------|---------------|
| command     | cancel    | decline              | acceptForSession if offered, else | accept if     |
|             |           |                      | accept                            | offered, else |
|             |           |                      |                                   | decline       |
| fileChange  | cancel    | decline              | acceptForSession                  | accept        |
| permissions | {permissions: {}, scope: turn}   | {requested network/fileSystem, scope: session|turn} |

A missing `availableDecisions` counts as offering everything. A request for another
thread or turn gets no answer at all (it is not this run's to answer). An abort of the
attempt while the host is deciding answers `cancel`; a failure of the host's decision
answers `decline`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from clawharness.plugin_sdk.agent_harness_tool_runtime import ToolCallRequest, ToolCalls

__all__ = [
    "APPROVAL_METHODS",
    "COMMAND_APPROVAL",
    "FILE_CHANGE_APPROVAL",
    "PERMISSIONS_APPROVAL",
    "ApprovalOutcome",
    "approval_request_tool",
    "build_approval_response",
    "decide_approval",
    "matches_turn",
    "outcome_of",
]

COMMAND_APPROVAL = "item/commandExecution/requestApproval"
FILE_CHANGE_APPROVAL = "item/fileChange/requestApproval"
PERMISSIONS_APPROVAL = "item/permissions/requestApproval"
APPROVAL_METHODS = frozenset({COMMAND_APPROVAL, FILE_CHANGE_APPROVAL, PERMISSIONS_APPROVAL})

ApprovalOutcome = Literal["approved-once", "approved-session", "denied", "unavailable",
                          "cancelled"]


def matches_turn(params: Mapping[str, Any], thread_id: str, turn_id: str | None) -> bool:
    """True when a request names exactly this thread and turn."""
    request_thread = params.get("threadId", params.get("conversationId"))
    return request_thread == thread_id and turn_id is not None \
        and params.get("turnId") == turn_id


def outcome_of(allowed: bool, approval: str) -> ApprovalOutcome:
    """The bridge outcome of a host verdict (`BeforeToolCallDecision.allowed/approval`)."""
    if not allowed:
        return "unavailable" if approval == "unavailable" else "denied"
    return "approved-session" if approval == "approved-session" else "approved-once"


def _offered(params: Mapping[str, Any], decision: str) -> bool:
    available = params.get("availableDecisions")
    if not isinstance(available, list):
        return True  # a missing list counts as offered
    return decision in available


def _requested_permissions(params: Mapping[str, Any]) -> dict[str, Any]:
    requested = params.get("permissions")
    if not isinstance(requested, Mapping):
        return {}
    granted: dict[str, Any] = {}
    for key in ("network", "fileSystem"):
        if requested.get(key) is not None:
            granted[key] = requested[key]
    return granted


def build_approval_response(method: str, params: Mapping[str, Any],
                            outcome: ApprovalOutcome) -> dict[str, Any]:
    """The wire answer to one approval request for `outcome`."""
    if method == COMMAND_APPROVAL:
        if outcome == "cancelled":
            return {"decision": "cancel"}
        if outcome in ("denied", "unavailable"):
            return {"decision": "decline"}
        if outcome == "approved-session" and _offered(params, "acceptForSession"):
            return {"decision": "acceptForSession"}
        return {"decision": "accept" if _offered(params, "accept") else "decline"}
    if method == FILE_CHANGE_APPROVAL:
        decision = {"cancelled": "cancel", "denied": "decline", "unavailable": "decline",
                    "approved-session": "acceptForSession", "approved-once": "accept"}[outcome]
        return {"decision": decision}
    if method == PERMISSIONS_APPROVAL:
        if outcome in ("approved-once", "approved-session"):
            return {"permissions": _requested_permissions(params),
                    "scope": "session" if outcome == "approved-session" else "turn"}
        return {"permissions": {}, "scope": "turn"}
    return {"decision": "decline",
            "reason": f"clawharness's Codex harness does not grant {method} approvals yet."}


def approval_request_tool(method: str, params: Mapping[str, Any], *, default_cwd: str,
                          item: Mapping[str, Any] | None = None
                          ) -> tuple[str, dict[str, Any], str]:
    """The host tool an approval request amounts to: `(name, arguments, cwd)`."""
    reason = params.get("reason")
    if method == FILE_CHANGE_APPROVAL:
        changes = []
        for change in (item or {}).get("changes") or ():
            if isinstance(change, Mapping):
                kind = change.get("kind")
                kind_name = kind.get("type") if isinstance(kind, Mapping) else kind
                changes.append({"path": change.get("path"), "kind": kind_name})
        root = params.get("grantRoot")
        cwd = root if isinstance(root, str) and root else default_cwd
        args: dict[str, Any] = {"changes": changes}
        if isinstance(root, str) and root:
            args["grantRoot"] = root
        if reason:
            args["reason"] = reason
        return "apply_patch", args, cwd
    raw_cwd = params.get("cwd")
    cwd = raw_cwd if isinstance(raw_cwd, str) and raw_cwd else default_cwd
    if method == PERMISSIONS_APPROVAL:
        args = {"permissions": _requested_permissions(params)}
    else:
        args = {"command": params.get("command") or (item or {}).get("command") or "",
                "cwd": cwd}
    if reason:
        args["reason"] = reason
    return "exec", args, cwd


async def decide_approval(
    method: str, params: Mapping[str, Any], *, thread_id: str, turn_id: str | None,
    tool_calls: ToolCalls, default_cwd: str, item: Mapping[str, Any] | None = None,
) -> dict[str, Any] | None:
    """Decide one approval request through the SDK's tool-call routine (`ask`: the
    host's policy and approvals, cancelled by an abort or the deadline, failing closed);
    None means "not this run's request: do not answer"."""
    if not matches_turn(params, thread_id, turn_id):
        return None
    if method not in APPROVAL_METHODS:
        return build_approval_response(method, params, "denied")
    name, args, cwd = approval_request_tool(method, params, default_cwd=default_cwd, item=item)
    call_id = params.get("itemId")
    permission = await tool_calls.ask(
        ToolCallRequest(call_id if isinstance(call_id, str) else "", name, args), cwd=cwd)
    if permission.cancelled:
        return build_approval_response(method, params, "cancelled")
    return build_approval_response(method, params,
                                   outcome_of(permission.allowed, permission.approval))
