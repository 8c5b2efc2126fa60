"""Pre-run gates between selection and `run_attempt` (pure, synchronous).

- Native tool-policy enforcement: a plugin harness sees an explicitly restricted turn only
  when it declares `conversation_tool_policy_support == "exact"`; otherwise the turn is
  rejected visibly and the harness is never called. Unknown names, wildcards, groups with
  an undeclared member and finite allowlists all count as restrictions (fail closed).
- Deny-all: a plugin harness gets `tools_allow=[]` plus one sentence naming the layer
  that denied (sender, chat, runtime), appended once; the built-in gets its params as-is.
- Harness-owned auth bootstrap (`auth_bootstrap == "harness"`).
- Verified setup runtime artifacts (capture and compare).
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Collection, Sequence
from dataclasses import dataclass, replace
from typing import Literal

from clawharness.errors import (
    AgentHarnessPreflightError,
    ProviderAuthError,
    RuntimeArtifactMismatchError,
    ToolPolicyRejectedError,
)
from clawharness.harness.types import AgentHarness, AttemptParams, AttemptResult, RuntimeArtifact
from clawharness.names.tool_groups import TOOL_GROUPS, expand_tool_groups, normalize_tool_name

__all__ = [
    "GROUP_DENY_ALL_PROMPT",
    "RUNTIME_DENY_ALL_PROMPT",
    "SENDER_DENY_ALL_PROMPT",
    "AuthBootstrapDecision",
    "ToolPolicyGate",
    "ToolPolicyLayer",
    "append_policy_prompt",
    "apply_tool_policy_gate",
    "assert_runtime_artifact",
    "check_runtime_artifact_request",
    "check_runtime_artifact_result",
    "evaluate_tool_policy_gate",
    "known_core_tool_ids",
    "resolve_auth_bootstrap",
    "validate_runtime_artifact_binding",
]

SENDER_DENY_ALL_PROMPT = (
    "Tool and file actions are disabled for this sender by chat policy. If asked to edit files "
    "or use tools, say this sender is not allowed by policy; do not imply retrying will help."
)
GROUP_DENY_ALL_PROMPT = (
    "Tool and file actions are disabled for this chat by policy. If asked to edit files or use "
    "tools, say this chat is not allowed by policy."
)
RUNTIME_DENY_ALL_PROMPT = (
    "Tool and file actions are disabled by runtime policy. If asked to edit files or use tools, "
    "say tools are disabled by policy."
)

LayerKind = Literal["sender", "sender-group", "group", "runtime", "profile"]


@functools.cache
def known_core_tool_ids() -> frozenset[str]:
    """Every tool id a core group names: the audited universe a safe-deny may come from."""
    return frozenset(name for members in TOOL_GROUPS.values() for name in members)


@dataclass(frozen=True, slots=True)
class ToolPolicyLayer:
    """One tool-policy layer as the gate sees it.

    `kind`: "sender" (sender policy), "sender-group" (a group policy that denies only
    because of who sent), "group" (chat policy), "runtime" (global, provider, agent,
    sandbox, subagent and the request's own allowlist), "profile" (default tool-profile
    narrowing, which never marks a turn restricted by itself). `allow=None` means no
    allowlist.
    """

    name: str
    kind: LayerKind
    allow: tuple[str, ...] | None = None
    deny: tuple[str, ...] = ()

    @staticmethod
    def requested(tools_allow: Sequence[str] | None,
                  disable_tools: bool = False) -> ToolPolicyLayer | None:
        """The request's own restriction: a runtime allowlist of [] (or disabled tools)
        denies everything; a non-empty one is a finite allowlist."""
        if disable_tools or (tools_allow is not None and len(tools_allow) == 0):
            return ToolPolicyLayer("requested", "runtime", deny=("*",))
        if tools_allow is not None:
            return ToolPolicyLayer("requested", "runtime", allow=tuple(tools_allow))
        return None

    def denies_all(self) -> bool:
        return any(normalize_tool_name(n) == "*" for n in expand_tool_groups(self.deny))

    def restricts(self) -> bool:
        """Whether this layer removes at least one tool from the default surface."""
        if any(normalize_tool_name(n) for n in expand_tool_groups(self.deny)):
            return True
        if self.allow:
            return not any(normalize_tool_name(n) == "*" for n in expand_tool_groups(self.allow))
        return False

    def allows(self, tool: str) -> bool:
        denied = {normalize_tool_name(n) for n in expand_tool_groups(self.deny)}
        if "*" in denied or tool in denied:
            return False
        if not self.allow:
            return True
        allowed = {normalize_tool_name(n) for n in expand_tool_groups(self.allow)}
        return "*" in allowed or tool in allowed


@dataclass(frozen=True, slots=True)
class ToolPolicyGate:
    """The gate's verdict for one (harness, turn)."""

    builtin: bool
    #: the native surface must be isolated (`plugin_harness_tool_policy_restricted`)
    restricted: bool
    #: exact denies the harness declared safe to enforce natively
    safe_denied_tools: tuple[str, ...]
    deny_all_prompt: str | None
    #: set when the turn must be rejected before the harness is called
    rejection: str | None

    @property
    def allowed(self) -> bool:
        return self.rejection is None

    def raise_if_rejected(self) -> None:
        """Fail closed: a visible ToolPolicyRejectedError instead of calling the harness."""
        if self.rejection is not None:
            raise ToolPolicyRejectedError(self.rejection)


def _restricts_native(layer: ToolPolicyLayer, safe: frozenset[str] | None,
                      known: Collection[str]) -> bool:
    if safe is None:
        return layer.restricts()
    if ToolPolicyLayer(layer.name, layer.kind, allow=layer.allow).restricts():
        return True
    for denied in expand_tool_groups(layer.deny):
        name = normalize_tool_name(denied)
        if name and (name not in known or name not in safe):
            return True
    return False


def evaluate_tool_policy_gate(
    harness: AgentHarness | None,
    layers: Sequence[ToolPolicyLayer],
    *,
    builtin: bool = False,
    known_core_tools: Collection[str] | None = None,
) -> ToolPolicyGate:
    """Decide restriction, safe denies, the deny-all sentence and rejection for one turn."""
    known = known_core_tool_ids() if known_core_tools is None else frozenset(known_core_tools)
    exact = harness is not None and getattr(
        harness, "conversation_tool_policy_support", None) == "exact"
    declared = getattr(harness, "conversation_tool_policy_safe_deny_tools", None) if exact else None
    safe = frozenset(normalize_tool_name(n) for n in declared) if declared is not None else None
    explicit = [layer for layer in layers if layer.kind != "profile"]
    profiles = [layer for layer in layers if layer.kind == "profile"]
    native_tools = getattr(harness, "conversation_tool_policy_native_tools", None) or ()
    restricted = any(
        not all(p.allows(normalize_tool_name(tool)) for p in profiles) for tool in native_tools
    ) or any(_restricts_native(layer, safe, known) for layer in explicit)
    safe_denied: tuple[str, ...] = ()
    if safe is not None:
        names = {
            normalize_tool_name(n) for layer in explicit for n in expand_tool_groups(layer.deny)
        }
        safe_denied = tuple(sorted(n for n in names if n in known and n in safe))
    if builtin:
        return ToolPolicyGate(True, restricted, safe_denied, None, None)
    rejection = None
    if restricted and not exact:
        label = harness.label if harness is not None else "The selected harness"
        rejection = (
            f"{label} cannot enforce this conversation's tool policy. Use the embedded runtime "
            "or ask in the main conversation."
        )
    prompt: str | None = None
    if any(layer.kind in ("sender", "sender-group") and layer.denies_all() for layer in layers):
        prompt = SENDER_DENY_ALL_PROMPT
    elif any(layer.kind == "group" and layer.denies_all() for layer in layers):
        prompt = GROUP_DENY_ALL_PROMPT
    elif any(layer.kind in ("runtime", "profile") and layer.denies_all() for layer in layers):
        prompt = RUNTIME_DENY_ALL_PROMPT
    return ToolPolicyGate(False, restricted, safe_denied, prompt, rejection)


def append_policy_prompt(existing: str | None, prompt: str) -> str:
    """Append `prompt` to a system prompt once (never twice)."""
    trimmed = (existing or "").strip()
    if not trimmed:
        return prompt
    return trimmed if prompt in trimmed else f"{trimmed}\n\n{prompt}"


def apply_tool_policy_gate(params: AttemptParams, gate: ToolPolicyGate) -> AttemptParams:
    """Params as the selected harness must see them (a copy; the input is not mutated).

    Built-in: unchanged. Plugin: the restriction facts, and for deny-all `tools_allow=[]`
    plus the layer's sentence. A rejected gate raises ToolPolicyRejectedError.
    """
    gate.raise_if_rejected()
    if gate.builtin:
        return params
    updated = replace(
        params,
        plugin_harness_tool_policy_restricted=gate.restricted,
        plugin_harness_tool_policy_safe_denied_tools=gate.safe_denied_tools,
    )
    if gate.deny_all_prompt is not None:
        updated = replace(
            updated,
            tools_allow=[],
            system_prompt=append_policy_prompt(updated.system_prompt, gate.deny_all_prompt),
        )
    return updated


@dataclass(frozen=True, slots=True)
class AuthBootstrapDecision:
    """Who prepares credentials for this attempt."""

    owner: Literal["host", "harness"]
    #: False: skip the host's generic provider credential bootstrap
    run_host_bootstrap: bool
    #: a compatible auth profile the host still forwards (harness-owned auth too)
    forward_profile_id: str | None = None


def resolve_auth_bootstrap(
    harness: AgentHarness | None,
    *,
    builtin: bool,
    provider: str,
    has_credentials: bool,
    profile_id: str | None = None,
) -> AuthBootstrapDecision:
    """Skip host bootstrap and the missing-credential failure for harness-owned auth."""
    if not builtin and harness is not None and getattr(harness, "auth_bootstrap", None) == "harness":
        return AuthBootstrapDecision("harness", False, profile_id)
    if not has_credentials:
        raise ProviderAuthError(
            f'no credentials for provider "{provider}": set its apiKey in models.providers.'
            f"{provider} or the provider's API-key environment variable"
        )
    return AuthBootstrapDecision("host", True, profile_id)


def check_runtime_artifact_request(harness: AgentHarness | None, params: AttemptParams) -> None:
    """Refuse before dispatch when the attempt needs attestation the harness cannot give."""
    wants = params.capture_runtime_artifact or params.expected_runtime_artifact is not None
    if not wants or harness is None:
        return
    capability = getattr(harness, "runtime_artifact", None)
    if capability is None or not callable(getattr(capability, "validate", None)):
        raise AgentHarnessPreflightError(
            f"{harness.label} cannot attest its runtime artifact; verified setup needs a harness "
            "with a runtime_artifact.validate capability",
            scope="harness",
        )


def assert_runtime_artifact(expected: RuntimeArtifact | None,
                            actual: RuntimeArtifact | None) -> None:
    """For the harness: compare the expected artifact with the native process it acquired.

    Call before starting or resuming a native thread; a mismatch raises
    RuntimeArtifactMismatchError. `expected=None` (ordinary turns) always passes.
    """
    if expected is None:
        return
    if actual is None:
        raise RuntimeArtifactMismatchError(
            f"expected runtime artifact {expected.id} but the acquired runtime reported none"
        )
    if actual.id != expected.id or actual.fingerprint != expected.fingerprint:
        raise RuntimeArtifactMismatchError(
            f"runtime artifact mismatch: expected {expected.id} ({expected.fingerprint[:16]}), "
            f"acquired {actual.id} ({actual.fingerprint[:16]})"
        )


def check_runtime_artifact_result(params: AttemptParams, result: AttemptResult) -> None:
    """After the attempt: a requested capture must come back with a stable id and
    fingerprint, and must match any expected artifact."""
    artifact = result.runtime_artifact
    incomplete = artifact is None or not artifact.id.strip() or not artifact.fingerprint.strip()
    if params.capture_runtime_artifact and incomplete:
        raise RuntimeArtifactMismatchError(
            "the attempt was asked to capture its runtime artifact but returned no "
            "runtime_artifact with an id and fingerprint"
        )
    if params.expected_runtime_artifact is not None and artifact is not None:
        assert_runtime_artifact(params.expected_runtime_artifact, artifact)


async def validate_runtime_artifact_binding(harness: AgentHarness | None,
                                            artifact: RuntimeArtifact) -> bool:
    """Recheck a stored artifact through the harness's own capability; fail closed."""
    capability = getattr(harness, "runtime_artifact", None)
    validate = getattr(capability, "validate", None)
    if not callable(validate):
        return False
    try:
        verdict = validate(artifact)
        if inspect.isawaitable(verdict):
            verdict = await verdict
    except Exception:
        return False
    return verdict is True
