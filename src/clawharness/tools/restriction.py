"""A narrowing of an agent's tool policy for one turn, set by a front (an ACP session's
mode): fewer tools, more approvals; never more than the config allows.

`RestrictedToolPolicy` answers as the agent's own policy does, then applies the
restriction: a tool the restriction's allow list does not name is refused (naming the
restriction), and a call of a tool on its `ask` list needs approval even where the
config would let it run unasked.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from clawharness.harness import (
    ApprovalSubject,
    ApprovalSubjectPolicy,
    ToolPolicyCheck,
    ToolPolicyLayer,
    check_tool_names,
)
from clawharness.names.tool_groups import expand_tool_groups, normalize_tool_name

__all__ = ["RestrictedToolPolicy", "ToolRestriction", "restricted_policy"]


@dataclass(frozen=True, slots=True)
class ToolRestriction:
    """What a front narrows for one turn. `label` names it in refusals and approval
    reasons ('the ACP session mode "read-only"'); `allow`: the only tools offered (tool
    names or groups; None: whatever the policy allows); `ask`: tools whose every call
    asks first."""

    label: str
    allow: tuple[str, ...] | None = None
    ask: tuple[str, ...] = ()

    def allows(self, names: Sequence[str]) -> bool:
        """Whether a tool known by `names` passes the allow list."""
        if self.allow is None:
            return True
        allowed = {normalize_tool_name(n) for n in expand_tool_groups(self.allow)}
        return any(normalize_tool_name(n) in allowed for n in names)

    def asks(self, tool_name: str) -> bool:
        asked = {normalize_tool_name(n) for n in expand_tool_groups(self.ask)}
        return normalize_tool_name(tool_name) in asked

    def gate_layer(self) -> ToolPolicyLayer | None:
        """The restriction as a policy layer the pre-run gate weighs (a harness that
        cannot enforce the conversation's tool policy is refused the turn)."""
        if self.allow is None:
            return None
        return ToolPolicyLayer(self.label, "runtime", allow=self.allow)


class RestrictedToolPolicy:
    """`base` (the agent's tool policy) narrowed by `restriction`."""

    def __init__(self, base: ToolPolicyCheck, restriction: ToolRestriction) -> None:
        self.base = base
        self.restriction = restriction

    def _refusal(self, names: Sequence[str]) -> str | None:
        if self.restriction.allows(names):
            return None
        return (f'tool "{names[0]}" is not offered in {self.restriction.label} (it allows '
                f"only {', '.join(self.restriction.allow or ())})")

    def check(self, tool_name: str) -> str | None:
        return self.check_names((tool_name,))

    def check_names(self, names: Sequence[str]) -> str | None:
        return check_tool_names(self.base, names) or self._refusal(names)

    def needs_approval(self, tool_name: str, arguments: Mapping[str, Any]) -> str | None:
        reason = self.base.needs_approval(tool_name, arguments)
        if reason is None and self.restriction.asks(tool_name):
            return f"{self.restriction.label} asks before every {tool_name} call"
        return reason

    def approval_subject(self, tool_name: str, arguments: Mapping[str, Any]) -> ApprovalSubject:
        if isinstance(self.base, ApprovalSubjectPolicy):
            return self.base.approval_subject(tool_name, arguments)
        return ApprovalSubject(grant_keys=frozenset({f"tool:{tool_name}"}),
                               grant_label=f"the {tool_name} tool")


def restricted_policy(base: ToolPolicyCheck,
                      restriction: ToolRestriction | None) -> ToolPolicyCheck:
    """`base`, narrowed by `restriction` when there is one."""
    return base if restriction is None else RestrictedToolPolicy(base, restriction)
