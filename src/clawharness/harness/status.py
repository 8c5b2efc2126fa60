"""`clawharness status`: the effective runtime of every agent/model and session.

Pure: config, registry and session pins in, a `StatusReport` out. The effective runtime
comes from the same selection the host runs (policy, persisted ownership, route support
from the configured route facts), so status never disagrees with what a turn would do.
JSON shape: docs/status-and-doctor.md.
"""

from __future__ import annotations

import os
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from clawharness.config.schema import ClawConfig, ModelRefSetting
from clawharness.errors import ClawHarnessError
from clawharness.harness.policy import default_agent_id, resolve_harness_policy
from clawharness.harness.registry import CORE_OWNER_ID, HarnessRegistry
from clawharness.harness.selection import SelectionRequest, apply_session_overrides, select_harness
from clawharness.harness.support import ProviderRoute
from clawharness.names.model_refs import parse_model_ref

__all__ = [
    "BUILTIN_RUNTIME_LABEL",
    "STATUS_JSON_VERSION",
    "AgentStatus",
    "HarnessInfo",
    "ModelStatus",
    "SessionPin",
    "SessionStatus",
    "StatusReport",
    "build_status",
    "explain_session",
    "runtime_for_ref",
]

STATUS_JSON_VERSION = 1
#: `Runtime: <label>` for the built-in runtime
BUILTIN_RUNTIME_LABEL = "OpenClaw Default"

Role = Literal["primary", "fallback", "configured", "session"]


@dataclass(frozen=True, slots=True)
class SessionPin:
    """What the session store persisted about one session's runtime ownership."""

    session_key: str
    agent_id: str | None = None
    #: the persisted harness (`agentHarnessId`)
    agent_harness_id: str | None = None
    runtime_override: str | None = None
    #: the session's model ref when it differs from the agent's primary
    model_ref: str | None = None
    #: the session's own thinking level (`/think`), when it has one
    thinking_level: str | None = None


@dataclass(frozen=True, slots=True)
class ModelStatus:
    """The effective runtime for one model ref."""

    ref: str
    role: Role
    provider: str | None = None
    model_id: str | None = None
    runtime: str | None = None
    runtime_label: str | None = None
    reason: str | None = None
    policy_runtime: str | None = None
    policy_source: str | None = None
    policy_scope: str | None = None
    forced_by_environment: bool = False
    legacy_ref: bool = False
    error: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return {
            "ref": self.ref,
            "role": self.role,
            "provider": self.provider,
            "modelId": self.model_id,
            "runtime": self.runtime,
            "runtimeLabel": self.runtime_label,
            "reason": self.reason,
            "policy": {
                "runtime": self.policy_runtime,
                "source": self.policy_source,
                "scope": self.policy_scope,
                "forcedByEnvironment": self.forced_by_environment,
            },
            "legacyRef": self.legacy_ref,
            "error": self.error,
        }


@dataclass(frozen=True, slots=True)
class AgentStatus:
    agent_id: str
    default: bool
    models: tuple[ModelStatus, ...]
    #: the agent's thinking level (`thinkingDefault`, its own or the default) and where
    #: it is set (`agent`, `default`); None: not set, the provider decides
    thinking: Thinking | None = None

    def as_dict(self) -> dict[str, Any]:
        return {"agentId": self.agent_id, "default": self.default,
                "models": [m.as_dict() for m in self.models],
                "thinking": self.thinking.as_dict() if self.thinking else None}


@dataclass(frozen=True, slots=True)
class Thinking:
    """A thinking level and where it is set (`session`, `agent`, `default`)."""

    level: str
    source: str

    def as_dict(self) -> dict[str, Any]:
        return {"level": self.level, "source": self.source}


def _thinking(config: ClawConfig, agent_id: str, session: str | None = None) -> Thinking | None:
    """Session > agent > default, as a turn without a message level resolves it."""
    entry = config.agents.entries.get(agent_id)
    for level, source in ((session, "session"),
                          (entry.thinking_default if entry is not None else None, "agent"),
                          (config.agents.defaults.thinking_default, "default")):
        if level is not None:
            return Thinking(level, source)
    return None


@dataclass(frozen=True, slots=True)
class SessionStatus:
    session_key: str
    agent_id: str
    pinned_harness_id: str | None
    runtime_override: str | None
    model: ModelStatus | None
    #: the same model's selection from the config alone, when a pin decides `model`
    without_pin: ModelStatus | None = None
    #: the level the session's next turn thinks at (without a message level)
    thinking: Thinking | None = None

    def as_dict(self) -> dict[str, Any]:
        return {"sessionKey": self.session_key, "agentId": self.agent_id,
                "pinnedHarnessId": self.pinned_harness_id,
                "runtimeOverride": self.runtime_override,
                "model": self.model.as_dict() if self.model else None,
                "withoutPin": self.without_pin.as_dict() if self.without_pin else None,
                "thinking": self.thinking.as_dict() if self.thinking else None}


@dataclass(frozen=True, slots=True)
class HarnessInfo:
    id: str
    label: str
    owner_plugin_id: str

    def as_dict(self) -> dict[str, Any]:
        return {"id": self.id, "label": self.label, "pluginId": self.owner_plugin_id}


@dataclass(frozen=True, slots=True)
class StatusReport:
    """Everything `clawharness status` shows."""

    agents: tuple[AgentStatus, ...]
    sessions: tuple[SessionStatus, ...]
    harnesses: tuple[HarnessInfo, ...]
    warnings: tuple[str, ...] = field(default_factory=tuple)

    def to_json(self) -> dict[str, Any]:
        """The stable JSON shape (see docs/status-and-doctor.md)."""
        return {
            "version": STATUS_JSON_VERSION,
            "builtinRuntime": {"id": "openclaw", "label": BUILTIN_RUNTIME_LABEL},
            "harnesses": [h.as_dict() for h in self.harnesses],
            "agents": [a.as_dict() for a in self.agents],
            "sessions": [s.as_dict() for s in self.sessions],
            "warnings": list(self.warnings),
        }


def _models_by_provider(config: ClawConfig) -> dict[str, list[str]]:
    return {pid: [m.id for m in p.models] for pid, p in config.models.providers.items()}


def _agent_ids(config: ClawConfig) -> list[tuple[str, bool]]:
    default = default_agent_id(config) or "main"
    ids = list(config.agents.entries)
    if default not in ids:
        ids.insert(0, default)
    return [(agent_id, agent_id == default) for agent_id in ids]


def _model_setting(config: ClawConfig, agent_id: str) -> ModelRefSetting | None:
    entry = config.agents.entries.get(agent_id)
    if entry is not None and entry.model is not None:
        return entry.model
    return config.agents.defaults.model


def _agent_refs(config: ClawConfig, agent_id: str) -> list[tuple[str, Role]]:
    refs: list[tuple[str, Role]] = []
    setting = _model_setting(config, agent_id)
    if setting is not None:
        if setting.primary:
            refs.append((setting.primary, "primary"))
        refs.extend((ref, "fallback") for ref in setting.fallbacks)
    entry = config.agents.entries.get(agent_id)
    maps = [entry.models if entry is not None else {}, config.agents.defaults.models]
    for models in maps:
        refs.extend((key, "configured") for key in models if not key.strip().endswith("/*"))
    seen: set[str] = set()
    unique: list[tuple[str, Role]] = []
    for ref, role in refs:
        if ref.strip() not in seen:
            seen.add(ref.strip())
            unique.append((ref.strip(), role))
    return unique


def _label(registry: HarnessRegistry, harness_id: str) -> str:
    if harness_id == "openclaw":
        return BUILTIN_RUNTIME_LABEL
    entry = registry.get(harness_id)
    return entry.harness.label if entry is not None else harness_id


def _model_status(
    config: ClawConfig, registry: HarnessRegistry, ref_text: str, role: Role, agent_id: str,
    env: Mapping[str, str], provider_routes: Mapping[str, Sequence[ProviderRoute]] | None,
    pin: SessionPin | None = None, known_providers: Collection[str] | None = None,
) -> ModelStatus:
    try:
        ref = parse_model_ref(ref_text, models_by_provider=_models_by_provider(config),
                              known_providers=known_providers)
    except ClawHarnessError as exc:
        return ModelStatus(ref=ref_text, role=role, error=str(exc))
    provider, model_id, override = ref.provider, ref.model, None
    if ref.legacy:
        # legacy codex/* refs stay compatibility aliases for the native Codex harness
        provider = ref.repaired().provider
        override = "codex" if ref.provider == "codex" else None
    request = SelectionRequest(
        provider=provider, model_id=model_id, agent_id=agent_id,
        session_key=pin.session_key if pin else None,
        agent_harness_id=pin.agent_harness_id if pin else None,
        agent_harness_runtime_override=(pin.runtime_override if pin and pin.runtime_override
                                        else override),
    )
    base = ModelStatus(ref=ref_text, role=role, provider=provider, model_id=model_id,
                       legacy_ref=ref.legacy)
    # the desired policy is shown even when selecting a harness for it fails
    policy = apply_session_overrides(resolve_harness_policy(
        config, provider=provider, model_id=model_id, agent_id=agent_id, env=env), request)
    legacy_alias = override is not None and request.agent_harness_runtime_override == override
    if legacy_alias and _pin_free(pin):
        policy = replace(policy, scope=f"legacy model ref {ref_text}")
    base = replace(base, policy_runtime=policy.runtime, policy_source=policy.source,
                   policy_scope=policy.scope, forced_by_environment=policy.forced_by_environment)
    try:
        decision = select_harness(config, registry, request, env=env,
                                  provider_routes=provider_routes)
    except ClawHarnessError as exc:
        return replace(base, error=str(exc))
    return replace(
        base,
        runtime=decision.selected_harness_id,
        runtime_label=_label(registry, decision.selected_harness_id),
        reason=decision.selected_reason,
    )


def runtime_for_ref(
    config: ClawConfig, registry: HarnessRegistry, ref: str, agent_id: str, *,
    env: Mapping[str, str] | None = None,
    provider_routes: Mapping[str, Sequence[ProviderRoute]] | None = None,
) -> ModelStatus:
    """The effective runtime a turn of `agent_id` on `ref` would run on (no session pin)."""
    return _model_status(config, registry, ref, "configured", agent_id,
                         os.environ if env is None else env, provider_routes)


def _pin_free(pin: SessionPin | None) -> bool:
    """True when no session pin or override decides the runtime."""
    return pin is None or (pin.agent_harness_id is None and pin.runtime_override is None)


def build_status(
    config: ClawConfig,
    registry: HarnessRegistry,
    sessions: Iterable[SessionPin] = (),
    *,
    env: Mapping[str, str] | None = None,
    provider_routes: Mapping[str, Sequence[ProviderRoute]] | None = None,
    agents: Sequence[str] | None = None,
    known_providers: Collection[str] | None = None,
) -> StatusReport:
    """Effective runtime, reason and policy source for each agent/model and session.

    `agents` limits the agent rows (e.g. to the agent of `--session`); with
    `known_providers`, a ref naming any other provider is an error row (its turns fail).
    """
    env = os.environ if env is None else env
    agent_rows: list[AgentStatus] = []
    for agent_id, is_default in _agent_ids(config):
        if agents is not None and agent_id not in agents:
            continue
        models = tuple(
            _model_status(config, registry, ref, role, agent_id, env, provider_routes,
                          known_providers=known_providers)
            for ref, role in _agent_refs(config, agent_id)
        )
        agent_rows.append(AgentStatus(agent_id, is_default, models,
                                      _thinking(config, agent_id)))
    session_rows: list[SessionStatus] = []
    for pin in sessions:
        agent_id = pin.agent_id or _agent_of(pin.session_key) or default_agent_id(config) or "main"
        setting = _model_setting(config, agent_id)
        ref = pin.model_ref or (setting.primary if setting is not None else None)
        model = (_model_status(config, registry, ref, "session", agent_id, env, provider_routes,
                               pin, known_providers) if ref else None)
        without_pin = (_model_status(config, registry, ref, "session", agent_id, env,
                                     provider_routes, known_providers=known_providers)
                       if ref and not _pin_free(pin) else None)
        session_rows.append(SessionStatus(pin.session_key, agent_id, pin.agent_harness_id,
                                          pin.runtime_override, model, without_pin,
                                          _thinking(config, agent_id, pin.thinking_level)))
    harnesses = tuple(HarnessInfo(e.harness.id, e.harness.label,
                                  e.owner_plugin_id or CORE_OWNER_ID) for e in registry.list())
    warnings: list[str] = []
    if config.agents.defaults.agent_runtime is not None:
        warnings.append("agents.defaults.agentRuntime is legacy and ignored; "
                        "run `clawharness doctor --fix`")
    for agent_id, entry in config.agents.entries.items():
        if entry.agent_runtime is not None:
            warnings.append(f"agents.entries.{agent_id}.agentRuntime is legacy and ignored; "
                            "run `clawharness doctor --fix`")
    return StatusReport(tuple(agent_rows), tuple(session_rows), harnesses, tuple(warnings))


def _agent_of(session_key: str) -> str | None:
    parts = session_key.split(":", 2)
    return parts[1] if len(parts) == 3 and parts[0] == "agent" and parts[1] else None


def explain_session(session: SessionStatus) -> str | None:
    """Why the session runs where it does, in words (None when selection fails)."""
    from clawharness.harness.explain import UnpinnedSelection, explain_selection

    row = session.model
    if row is None or row.runtime is None or row.reason is None:
        return None
    free = session.without_pin
    unpinned = (UnpinnedSelection(free.runtime, free.reason)
                if free is not None and free.runtime and free.reason else None)
    return explain_selection(row.runtime, row.reason, pinned=session.pinned_harness_id,
                             session_key=session.session_key, unpinned=unpinned)
