"""Harness selection: the pure availability and selection decisions (digest §2.2, §2.3).

Model scope > provider scope > auto > built-in. `auto` asks every registered plugin
harness once whether it supports the resolved route; the built-in `openclaw` harness is
never a candidate, only the fallback when no plugin claims the route. Explicit plugin
runtimes fail closed unless the harness itself declares the lossless `openclaw` fallback.

Nothing here runs a harness; `clawharness.harness.dispatch` does that.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from clawharness.config.schema import ClawConfig
from clawharness.errors import AgentHarnessNotRegisteredError, AgentHarnessUnsupportedError
from clawharness.harness.policy import RuntimePolicy, resolve_harness_policy
from clawharness.harness.registry import HarnessRegistry, RegisteredHarness
from clawharness.harness.runtime_ids import (
    AUTO_RUNTIME_ID,
    BUILTIN_RUNTIME_ID,
    is_default_runtime_id,
    normalize_optional_runtime_id,
)
from clawharness.harness.support import (
    ProviderRoute,
    auto_selection_hint,
    build_support_context,
    coerce_support_result,
    probe_support,
)
from clawharness.harness.types import (
    AgentHarness,
    ModelProviderFacts,
    SupportContext,
    Supported,
    SupportResult,
    Unsupported,
)

__all__ = [
    "DEFAULT_CLI_RUNTIME_ALIASES",
    "HARNESS_DEBUG_SUBSYSTEM",
    "AvailabilityDecision",
    "AvailabilityKind",
    "HarnessSelectedRecord",
    "SelectionCandidate",
    "SelectionDecision",
    "SelectionReason",
    "SelectionRequest",
    "apply_session_overrides",
    "auto_selection_hint",
    "coerce_support_result",
    "debug_enabled",
    "decide_selection",
    "log_harness_selection",
    "resolve_availability",
    "select_harness",
]

SelectionReason = Literal[
    "forced_openclaw",
    "forced_plugin",
    "implicit_plugin_unavailable_openclaw",
    "implicit_plugin_unsupported_openclaw",
    "plugin_declared_fallback_openclaw",
    "cli_runtime_passthrough_openclaw",
    "auto_plugin",
    "auto_openclaw",
]
AvailabilityKind = Literal[
    "available", "implicit-unavailable", "implicit-unsupported", "declared-fallback"
]

#: subsystem whose debug switch turns on the "agent harness selected" record
HARNESS_DEBUG_SUBSYSTEM = "agents/harness"
#: CLI backend runtime ids and the providers they pass through for
DEFAULT_CLI_RUNTIME_ALIASES: Mapping[str, frozenset[str]] = {
    "claude-cli": frozenset({"anthropic"}),
    "google-gemini-cli": frozenset({"google", "google-gemini-cli"}),
}

_log = logging.getLogger("clawharness.agents.harness")

ContextFactory = Callable[[str], SupportContext]


@dataclass(frozen=True, slots=True)
class SelectionRequest:
    """What selection knows about one turn before a harness is chosen."""

    provider: str | None
    model_id: str | None = None
    agent_id: str | None = None
    session_key: str | None = None
    #: the session-persisted harness (`agentHarnessId`)
    agent_harness_id: str | None = None
    #: a per-session runtime override (`agentHarnessRuntimeOverride`)
    agent_harness_runtime_override: str | None = None
    #: prepared route facts; their `runtime_policy` wins over config
    model_provider: ModelProviderFacts | None = None
    #: finalized route/auth facts: pins must pass support again
    prepared_model_provider: bool = False
    #: several physical routes left open by harness-owned auth
    retry_routes: tuple[ModelProviderFacts, ...] = ()
    #: "projection" (read-only views) never turns an absent harness into a fallback
    mode: Literal["execution", "projection"] = "execution"
    provider_owner_plugin_ids: tuple[str, ...] | None = None


@dataclass(frozen=True, slots=True)
class AvailabilityDecision:
    """Policy after pins and availability, plus the one support probe it made."""

    kind: AvailabilityKind
    policy: RuntimePolicy
    support: SupportResult | None = None


@dataclass(frozen=True, slots=True)
class SelectionCandidate:
    """One plugin harness as the debug record shows it (support only in auto mode)."""

    id: str
    label: str
    plugin_id: str | None = None
    supported: bool | None = None
    priority: int | None = None
    reason: str | None = None

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"id": self.id, "label": self.label}
        for key, value in (("pluginId", self.plugin_id), ("supported", self.supported),
                           ("priority", self.priority), ("reason", self.reason)):
            if value is not None:
                out[key] = value
        return out


@dataclass(frozen=True, slots=True)
class SelectionDecision:
    """The selected harness and why."""

    policy: RuntimePolicy
    #: the policy after pins/overrides, before availability rewrote it
    requested_policy: RuntimePolicy
    selected_harness_id: str
    selected_reason: SelectionReason
    builtin: bool
    #: the plugin harness, or the registry's built-in harness (None when none installed)
    harness: AgentHarness | None
    owner_plugin_id: str | None
    #: each plugin registration with its auto-mode support answer (None outside auto mode)
    probes: tuple[tuple[RegisteredHarness, SupportResult | None], ...]
    availability: AvailabilityKind = "available"
    #: the support answer for an explicit runtime, when one was probed
    support: SupportResult | None = None

    @property
    def candidates(self) -> tuple[SelectionCandidate, ...]:
        """Plugin candidates for records (built on demand, off the selection hot path)."""
        return tuple(_candidate(entry, support) for entry, support in self.probes)

    @property
    def runtime(self) -> str:
        return self.policy.runtime

    @property
    def runtime_source(self) -> str:
        return self.policy.source


@dataclass(frozen=True, slots=True)
class HarnessSelectedRecord:
    """The structured "agent harness selected" debug record."""

    provider: str | None
    model_id: str | None
    session_key: str | None
    agent_id: str | None
    selected_harness_id: str
    selected_reason: str
    runtime: str
    runtime_source: str
    requested_runtime: str
    forced_by_environment: bool
    fallback_runtime: str | None
    candidates: tuple[SelectionCandidate, ...]
    message: str = "agent harness selected"
    subsystem: str = HARNESS_DEBUG_SUBSYSTEM

    def as_dict(self) -> dict[str, Any]:
        return {
            "message": self.message,
            "subsystem": self.subsystem,
            "provider": self.provider,
            "modelId": self.model_id,
            "sessionKey": self.session_key,
            "agentId": self.agent_id,
            "selectedHarnessId": self.selected_harness_id,
            "selectedReason": self.selected_reason,
            "runtime": self.runtime,
            "runtimeSource": self.runtime_source,
            "requestedRuntime": self.requested_runtime,
            "forcedByEnvironment": self.forced_by_environment,
            "fallbackRuntime": self.fallback_runtime,
            "candidates": [c.as_dict() for c in self.candidates],
        }


def apply_session_overrides(policy: RuntimePolicy, request: SelectionRequest) -> RuntimePolicy:
    """A session pin (else a runtime override) acts as a model-scoped explicit runtime.

    `auto`/`default` overrides are ignored: the configured policy applies.
    """
    pinned = normalize_optional_runtime_id(request.agent_harness_id)
    override = pinned or normalize_optional_runtime_id(request.agent_harness_runtime_override)
    if override is None or is_default_runtime_id(override):
        return policy
    return RuntimePolicy(runtime=override, source="model",
                         forced_by_environment=policy.forced_by_environment, scope="session")


def resolve_availability(
    policy: RuntimePolicy,
    request: SelectionRequest,
    registry: HarnessRegistry,
    make_context: ContextFactory,
) -> AvailabilityDecision:
    """Apply the session pin/override, then the availability table (digest §2.2)."""
    pinned = normalize_optional_runtime_id(request.agent_harness_id)
    policy = apply_session_overrides(policy, request)
    implicit = policy.runtime == "codex" and policy.source == "implicit"
    if policy.runtime in (AUTO_RUNTIME_ID, BUILTIN_RUNTIME_ID):
        return AvailabilityDecision("available", policy)
    registered = registry.get(policy.runtime)
    if registered is None:
        if implicit and request.mode != "projection":
            return AvailabilityDecision("implicit-unavailable", _to_builtin(policy))
        return AvailabilityDecision("available", policy)
    if pinned == policy.runtime and not request.prepared_model_provider:
        # the pinned harness owns its native transcript until prepared facts exist
        return AvailabilityDecision("available", policy)
    if request.provider is None:
        return AvailabilityDecision("available", policy)
    support = probe_support(registered.harness, make_context(policy.runtime))
    if not support.supported and not policy.forced_by_environment:
        if implicit:
            return AvailabilityDecision("implicit-unsupported", _to_builtin(policy), support)
        if support.fallback_runtime == BUILTIN_RUNTIME_ID:
            return AvailabilityDecision("declared-fallback", _to_builtin(policy), support)
    return AvailabilityDecision("available", policy, support)


def _to_builtin(policy: RuntimePolicy) -> RuntimePolicy:
    return RuntimePolicy(runtime=BUILTIN_RUNTIME_ID, source=policy.source,
                         forced_by_environment=policy.forced_by_environment, scope=policy.scope)


def _is_cli_alias(runtime: str, provider: str | None,
                  aliases: Mapping[str, Collection[str]]) -> bool:
    providers = aliases.get(runtime)
    return providers is not None and (provider or "").strip().lower() in providers


def _candidate(entry: RegisteredHarness,
               support: SupportResult | None = None) -> SelectionCandidate:
    harness = entry.harness
    plugin_id = getattr(harness, "plugin_id", None) or entry.owner_plugin_id
    if support is None:
        return SelectionCandidate(harness.id, harness.label, plugin_id)
    return SelectionCandidate(
        harness.id, harness.label, plugin_id, supported=support.supported,
        priority=support.priority if isinstance(support, Supported) else None,
        reason=support.reason,
    )


def decide_selection(
    policy: RuntimePolicy,
    request: SelectionRequest,
    registry: HarnessRegistry,
    make_context: ContextFactory,
    *,
    cli_runtime_aliases: Mapping[str, Collection[str]] = DEFAULT_CLI_RUNTIME_ALIASES,
) -> SelectionDecision:
    """The selection table (digest §2.3). Each harness's `supports` is asked at most once."""
    requested = apply_session_overrides(policy, request)
    availability = resolve_availability(policy, request, registry, make_context)
    effective = availability.policy
    runtime = effective.runtime
    Probes = tuple[tuple[RegisteredHarness, SupportResult | None], ...]
    # outside auto mode the record lists harnesses without support fields
    listed: Probes = tuple((entry, None) for entry in registry.list())

    def builtin(reason: SelectionReason, pol: RuntimePolicy,
                probes: Probes = listed) -> SelectionDecision:
        return SelectionDecision(
            policy=pol, requested_policy=requested, selected_harness_id=BUILTIN_RUNTIME_ID,
            selected_reason=reason, builtin=True, harness=registry.builtin,
            owner_plugin_id=None, probes=probes, availability=availability.kind,
            support=availability.support,
        )

    def plugin(harness: AgentHarness, reason: SelectionReason,
               probes: Probes = listed) -> SelectionDecision:
        return SelectionDecision(
            policy=effective, requested_policy=requested, selected_harness_id=harness.id,
            selected_reason=reason, builtin=False, harness=harness,
            owner_plugin_id=registry.owner_plugin_id(harness),
            probes=probes, availability=availability.kind, support=availability.support,
        )

    if runtime == BUILTIN_RUNTIME_ID:
        reason: SelectionReason = {
            "implicit-unavailable": "implicit_plugin_unavailable_openclaw",
            "implicit-unsupported": "implicit_plugin_unsupported_openclaw",
            "declared-fallback": "plugin_declared_fallback_openclaw",
        }.get(availability.kind, "forced_openclaw")  # type: ignore[assignment]
        return builtin(reason, effective)

    passthrough = RuntimePolicy(BUILTIN_RUNTIME_ID, effective.source,
                                effective.forced_by_environment, effective.scope)
    if runtime != AUTO_RUNTIME_ID:
        entry = registry.get(runtime)
        if entry is not None:
            support = availability.support
            if support is None or support.supported or support.fallback_runtime == "openclaw":
                if support is not None and not support.supported:
                    _log.info("agent harness selected requested=%s selected=%s "
                              "reason=private_qa_forced_runtime", runtime, entry.harness.id)
                return plugin(entry.harness, "forced_plugin")
            if _is_cli_alias(runtime, request.provider, cli_runtime_aliases):
                return builtin("cli_runtime_passthrough_openclaw", passthrough)
            raise AgentHarnessUnsupportedError(
                runtime, request.provider or "", request.model_id or "", support.reason
            )
        if _is_cli_alias(runtime, request.provider, cli_runtime_aliases):
            return builtin("cli_runtime_passthrough_openclaw", passthrough)
        raise AgentHarnessNotRegisteredError(runtime)

    provider = request.provider or ""
    ctx: SupportContext | None = None
    probes: list[tuple[RegisteredHarness, SupportResult | None]] = []
    best: tuple[int, str, AgentHarness] | None = None
    for entry in registry.list():
        harness = entry.harness
        answer: SupportResult | None = auto_selection_hint(harness, provider)
        if answer is None:
            if ctx is None:
                ctx = make_context(AUTO_RUNTIME_ID)
            answer = probe_support(harness, ctx)
        probes.append((entry, answer))
        # registry order is id order, so a strict comparison keeps the lower id on ties
        if isinstance(answer, Supported) and (best is None or -answer.priority < best[0]):
            best = (-answer.priority, harness.id, harness)
    if best is None:
        return builtin("auto_openclaw", effective, tuple(probes))
    return plugin(best[2], "auto_plugin", tuple(probes))


def select_harness(
    config: ClawConfig | None,
    registry: HarnessRegistry,
    request: SelectionRequest,
    *,
    env: Mapping[str, str] | None = None,
    auth_runtime: str | None = None,
    provider_routes: Mapping[str, Sequence[ProviderRoute]] | None = None,
    cli_runtime_aliases: Mapping[str, Collection[str]] = DEFAULT_CLI_RUNTIME_ALIASES,
) -> SelectionDecision:
    """Resolve the policy from config and decide. Pure apart from reading `env`."""
    env = os.environ if env is None else env
    policy = resolve_harness_policy(
        config, provider=request.provider, model_id=request.model_id, agent_id=request.agent_id,
        env=env, model_provider=request.model_provider, auth_runtime=auth_runtime,
    )
    cache: dict[str, SupportContext] = {}

    def make_context(requested_runtime: str) -> SupportContext:
        ctx = cache.get(requested_runtime)
        if ctx is None:
            ctx = build_support_context(
                provider=(request.provider or "").strip(),
                model_id=request.model_id,
                requested_runtime=requested_runtime,
                config=config,
                agent_id=request.agent_id,
                model_provider=request.model_provider,
                prepared_model_provider=request.prepared_model_provider,
                retry_routes=request.retry_routes,
                provider_routes=provider_routes,
                provider_owner_plugin_ids=request.provider_owner_plugin_ids,
            )
            cache[requested_runtime] = ctx
        return ctx

    return decide_selection(policy, request, registry, make_context,
                            cli_runtime_aliases=cli_runtime_aliases)


def debug_enabled(debug: bool | Collection[str] | None,
                  subsystem: str = HARNESS_DEBUG_SUBSYSTEM) -> bool:
    """Whether debug records are on for `subsystem` (`logging.debug` list, or a bool)."""
    if debug is None or isinstance(debug, bool):
        return bool(debug)
    return subsystem in debug or "*" in debug


def log_harness_selection(
    decision: SelectionDecision,
    request: SelectionRequest,
    *,
    debug: bool | Collection[str] | None,
    sink: Callable[[HarnessSelectedRecord], None] | None = None,
) -> HarnessSelectedRecord | None:
    """Emit the "agent harness selected" record when `agents/harness` debug is on.

    When it is off, returns None before building anything: the record (and its
    candidate list) costs nothing on the normal path.
    """
    if not debug_enabled(debug):
        return None
    support = decision.support
    fallback: str | None
    if decision.policy.runtime == AUTO_RUNTIME_ID or decision.selected_reason == "auto_plugin":
        fallback = BUILTIN_RUNTIME_ID if decision.selected_reason == "auto_openclaw" else None
    elif isinstance(support, Unsupported) and not decision.policy.forced_by_environment:
        fallback = support.fallback_runtime
    else:
        fallback = None
    record = HarnessSelectedRecord(
        provider=request.provider,
        model_id=request.model_id,
        session_key=request.session_key,
        agent_id=request.agent_id,
        selected_harness_id=decision.selected_harness_id,
        selected_reason=decision.selected_reason,
        runtime=decision.policy.runtime,
        runtime_source=decision.policy.source,
        requested_runtime=decision.requested_policy.runtime,
        forced_by_environment=decision.policy.forced_by_environment,
        fallback_runtime=fallback,
        candidates=decision.candidates,
    )
    if sink is not None:
        sink(record)
    else:
        _log.debug(record.message, extra={"harness_selection": record.as_dict()})
    return record
