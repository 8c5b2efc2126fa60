"""Host capabilities bound to one attempt (`params.host_capabilities`).

The host builds one `HostCapabilities` per attempt. Identity (run, session, workspace,
requester, route, approval route) lives in the closure; a plugin passes only the tool
facts. Once the host settles the attempt, every call fails closed with
`AttemptSettledError`.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, Literal, Protocol, runtime_checkable

from clawharness.errors import AttemptSettledError, ToolPolicyDeniedError
from clawharness.harness.tool_spec import ToolSpec
from clawharness.harness.workspace import real_workspace_root
from clawharness.names.tool_profiles import absent_tool_reason

__all__ = [
    "BUDGET_EXTEND_TOOL",
    "HOST_CAPABILITIES_VERSION",
    "ApprovalDecision",
    "ApprovalGate",
    "ApprovalRequest",
    "ApprovalSubject",
    "ApprovalSubjectPolicy",
    "BeforeToolCallDecision",
    "HostCapabilities",
    "SpellingAwarePolicy",
    "ToolPolicyCheck",
    "check_tool_names",
    "tool_spellings",
]

HOST_CAPABILITIES_VERSION = 2

ApprovalDecision = Literal["allow-once", "allow-always", "deny"]

#: the name a budget's extension question carries to an approver (as a tool call's would):
#: a yes or no for this turn only; an approver never offers or remembers "always" for it,
#: which would extend the budget again at every later turn unasked
BUDGET_EXTEND_TOOL: Final = "budget.extend"


class ToolPolicyCheck(Protocol):
    """The attempt's effective tool policy (pure and synchronous)."""

    def check(self, tool_name: str) -> str | None:
        """None when allowed, else the reason it is denied."""

    def needs_approval(self, tool_name: str, arguments: Mapping[str, Any]) -> str | None:
        """None when the call may run unasked; else why approval is required.
        Raises ToolPolicyDeniedError when policy refuses it outright."""


@runtime_checkable
class SpellingAwarePolicy(Protocol):
    """A policy that weighs every spelling of one tool together (the host's own does)."""

    def check_names(self, names: Sequence[str]) -> str | None:
        """None when the tool, named by all of `names` (its offered name first), is
        allowed; else the reason it is denied."""


def tool_spellings(spec: ToolSpec) -> tuple[str, ...]:
    """The names a policy rule may use for `spec`: its offered name first."""
    return (spec.name, *(n for n in spec.policy_names if n != spec.name))


def check_tool_names(policy: ToolPolicyCheck, names: Sequence[str]) -> str | None:
    """`policy`'s verdict on a tool known by several names (see `ToolSpec.policy_names`).

    A policy that cannot weigh them together is asked about each, and any refusal
    refuses the tool: a rule written for one spelling is never sidestepped by another.
    """
    if len(names) > 1 and isinstance(policy, SpellingAwarePolicy):
        return policy.check_names(names)
    for name in names:
        reason = policy.check(name)
        if reason is not None:
            return reason
    return None


@dataclass(frozen=True, slots=True)
class ApprovalSubject:
    """What an approval is about, beyond the call itself.

    `programs`: what an exec command would run (resolved paths), for the person asked.
    `grant_keys`: what an allow-always answer covers for the rest of the session (a later
    call is granted when all its keys are); None when it cannot cover more than this call.
    `grant_label` says the same for a person ("git, ls").
    """

    programs: tuple[str, ...] = ()
    grant_keys: frozenset[str] | None = None
    grant_label: str | None = None


@runtime_checkable
class ApprovalSubjectPolicy(Protocol):
    """A policy that can say what an approval covers (the host's own policy does)."""

    def approval_subject(self, tool_name: str, arguments: Mapping[str, Any]) -> ApprovalSubject:
        """The subject of an approval for this call."""


@dataclass(frozen=True, slots=True)
class ApprovalRequest:
    run_id: str
    session_key: str
    tool_name: str
    arguments: Mapping[str, Any]
    reason: str
    cwd: str
    tool_call_id: str | None = None
    subject: ApprovalSubject = field(default_factory=ApprovalSubject)


class ApprovalGate(Protocol):
    """Where an approval question goes: a terminal prompt, the gateway's operators, ..."""

    async def decide(self, request: ApprovalRequest) -> ApprovalDecision | None:
        """The operator's answer; None when no one can answer (treated as a refusal)."""


@dataclass(frozen=True, slots=True)
class BeforeToolCallDecision:
    """The host's verdict on one tool call (host or native)."""

    allowed: bool
    reason: str | None = None
    approval: Literal["not-required", "approved-once", "approved-session", "denied",
                      "unavailable"] = "not-required"
    arguments: Mapping[str, Any] = field(default_factory=dict)
    cwd: str | None = None


class HostCapabilities:
    """Capabilities lent to one attempt; they fail closed once it settles."""

    version = HOST_CAPABILITIES_VERSION

    def __init__(
        self,
        *,
        run_id: str,
        session_key: str,
        workspace_dir: str,
        policy: ToolPolicyCheck,
        approvals: ApprovalGate | None,
        spellings: Mapping[str, Sequence[str]] | None = None,
    ) -> None:
        """`spellings`: tool name -> every name a policy rule may use for it (offered name
        first; `ToolSpec.policy_names`), for the tools the host knows of, offered or not,
        so a call by name is judged, and a refusal explained, under all of them."""
        self._run_id = run_id
        self._session_key = session_key
        self._workspace_dir = real_workspace_root(workspace_dir)
        self._policy = policy
        self._approvals = approvals
        self._settled = False
        #: what allow-always answers granted for the rest of the attempt's session
        self._session_grants: set[str] = set()
        self._bound: tuple[ToolSpec, ...] | None = None
        self._spellings: dict[str, tuple[str, ...]] = {
            name: tuple(names) for name, names in (spellings or {}).items()}

    @property
    def settled(self) -> bool:
        return self._settled

    def settle(self) -> None:
        """Called by the host when the attempt returns; later calls fail closed."""
        self._settled = True

    def _assert_live(self, what: str) -> None:
        if self._settled:
            raise AttemptSettledError(
                f"{what} called after attempt {self._run_id} settled; host capabilities "
                "are bound to one attempt and fail closed afterwards"
            )

    def bind_tool_surface(self, tools: Sequence[ToolSpec]) -> tuple[ToolSpec, ...]:
        """The subset of `tools` this attempt's policy lets the harness expose."""
        self._assert_live("bind_tool_surface")
        allowed = tuple(t for t in tools
                        if check_tool_names(self._policy, tool_spellings(t)) is None)
        self._bound = allowed
        self._spellings.update((t.name, tool_spellings(t)) for t in allowed if t.policy_names)
        return allowed

    def _check(self, tool_name: str) -> str | None:
        return check_tool_names(self._policy, self._spellings.get(tool_name, (tool_name,)))

    def unavailable_tool_reason(self, tool_name: str) -> str:
        """Why `tool_name` is not on this attempt's tool surface, naming the rule that
        refused it (or how to turn it on). Pure; usable after the attempt settled."""
        return self._check(tool_name) or absent_tool_reason(tool_name)

    def _normalize_cwd(self, native_operation: Mapping[str, Any] | None) -> str:
        raw = (native_operation or {}).get("cwd")
        if not raw:
            return self._workspace_dir
        cwd = str(raw)
        if not os.path.isabs(cwd):
            cwd = os.path.join(self._workspace_dir, cwd)
        return os.path.realpath(cwd)

    def _subject(self, tool_name: str, arguments: Mapping[str, Any]) -> ApprovalSubject:
        if isinstance(self._policy, ApprovalSubjectPolicy):
            return self._policy.approval_subject(tool_name, arguments)
        # a policy that cannot say more: allow-always covers the tool
        return ApprovalSubject(grant_keys=frozenset({f"tool:{tool_name}"}),
                               grant_label=f"the {tool_name} tool")

    async def run_before_tool_call(
        self,
        tool_name: str,
        arguments: Mapping[str, Any],
        *,
        tool_call_id: str | None = None,
        native_operation: Mapping[str, Any] | None = None,
    ) -> BeforeToolCallDecision:
        """Apply tool policy and approvals to one call, host or native."""
        self._assert_live("run_before_tool_call")
        cwd = self._normalize_cwd(native_operation)
        denied = self._check(tool_name)
        if denied is not None:
            return BeforeToolCallDecision(False, denied, "denied", arguments, cwd)
        try:
            ask_reason = self._policy.needs_approval(tool_name, arguments)
        except ToolPolicyDeniedError as exc:
            return BeforeToolCallDecision(False, str(exc), "denied", arguments, cwd)
        if ask_reason is None:
            return BeforeToolCallDecision(True, None, "not-required", arguments, cwd)
        subject = self._subject(tool_name, arguments)
        keys = subject.grant_keys
        if keys and keys <= self._session_grants:
            return BeforeToolCallDecision(True, None, "approved-session", arguments, cwd)
        if self._approvals is None:
            return BeforeToolCallDecision(
                False, f"{ask_reason}; no approver is available, so the call is refused",
                "unavailable", arguments, cwd,
            )
        request = ApprovalRequest(self._run_id, self._session_key, tool_name, arguments,
                                  ask_reason, cwd, tool_call_id, subject)
        decision = await self._approvals.decide(request)
        # the attempt may have settled while we waited for a person
        self._assert_live("run_before_tool_call")
        if decision == "allow-always":
            if not keys:  # e.g. ask "always": the answer covers this call only
                return BeforeToolCallDecision(True, None, "approved-once", arguments, cwd)
            self._session_grants |= keys
            return BeforeToolCallDecision(True, None, "approved-session", arguments, cwd)
        if decision == "allow-once":
            return BeforeToolCallDecision(True, None, "approved-once", arguments, cwd)
        if decision is None:
            # a gate with no one to ask (no terminal, no operator client connected)
            return BeforeToolCallDecision(
                False, f"{ask_reason}; no one could answer the approval request (no terminal "
                "or operator client), so the call is refused", "unavailable", arguments, cwd,
            )
        return BeforeToolCallDecision(False, "approval refused by the operator", "denied",
                                      arguments, cwd)
