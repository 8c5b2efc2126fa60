"""Config -> runtime policy (`resolveModelRuntimePolicy` -> `resolveAgentHarnessPolicy`).

Precedence, first match wins (digest §2.1):

0. the private-QA environment force (`forced_by_environment`);
1. an exact entry in the agent's `models` map, then in `agents.defaults.models`
   (a providerless model id matching entries of different providers is ambiguous and
   resolves to nothing, i.e. auto);
2. `agentRuntime` on the provider's model row (`models.providers.<p>.models[]`);
3. a provider wildcard (`"openai/*"`) in the agent's map, then the defaults' map;
4. `models.providers.<p>.agentRuntime` (source `provider`);
5. nothing -> `auto` (source `implicit`).

The whole-agent keys `agents.defaults.agentRuntime` / `agents.entries.X.agentRuntime` are
legacy and ignored. When the result is `auto`, a CLI runtime selected by the credentials
in use (source `auth`) or OpenAI's implicit Codex route (source `implicit`) may apply.
Everything here is pure: the environment is passed in.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from clawharness.config.schema import AgentModelEntry, ClawConfig
from clawharness.harness.runtime_ids import (
    AUTO_RUNTIME_ID,
    normalize_runtime_id,
)
from clawharness.harness.support import (
    ProviderRoute,
    classify_openai_route,
    normalize_model_id_for_provider,
    resolve_route_facts,
)
from clawharness.harness.types import ModelProviderFacts

__all__ = [
    "QA_FORCE_ENV_NAMES",
    "ConfiguredRuntimePolicy",
    "PolicySource",
    "RuntimePolicy",
    "default_agent_id",
    "implicit_openai_runtime",
    "qa_forced_runtime",
    "resolve_harness_policy",
    "resolve_model_runtime_policy",
]

PolicySource = Literal["model", "provider", "implicit", "auth"]
_MatchKind = Literal["none", "exact", "provider-wildcard"]

#: (build flag, forced runtime) env pairs, the original's names first
QA_FORCE_ENV_NAMES = (
    ("OPENCLAW_BUILD_PRIVATE_QA", "OPENCLAW_QA_FORCE_RUNTIME"),
    ("CLAWHARNESS_BUILD_PRIVATE_QA", "CLAWHARNESS_QA_FORCE_RUNTIME"),
)
_QA_FORCEABLE = frozenset({"openclaw", "codex"})


@dataclass(frozen=True, slots=True)
class ConfiguredRuntimePolicy:
    """The authored `agentRuntime` that won, and where it was written."""

    runtime_id: str
    source: Literal["model", "provider"]
    #: a config key path such as `agents.defaults.models["openai/*"]`
    scope: str
    matched_provider: str | None = None
    forced_by_environment: bool = False


@dataclass(frozen=True, slots=True)
class RuntimePolicy:
    """The desired runtime for one provider/model turn."""

    runtime: str
    source: PolicySource
    forced_by_environment: bool = False
    #: the config key path that supplied it (None for implicit / env / auth)
    scope: str | None = None


def _provider_id(raw: str | None) -> str:
    return (raw or "").strip().lower()


def _has_policy(entry: AgentModelEntry) -> bool:
    runtime = entry.agent_runtime
    if runtime is None or runtime.id is None:
        return False
    text = runtime.id.strip()
    return bool(text) and text.lower() != "default"


def _match_kind(entry_id: str, provider: str, model_id: str) -> _MatchKind:
    key = entry_id.strip()
    if key == model_id:
        return "exact"
    head, sep, tail = key.partition("/")
    head, tail = head.strip().lower(), tail.strip()
    if not sep or not head or not tail:
        return "none"
    if provider and head != provider:
        return "none"
    if tail == model_id:
        return "exact"
    if tail == "*":
        return "provider-wildcard"
    return "none"


def default_agent_id(config: ClawConfig) -> str | None:
    """The agent marked `default: true`, else `main` when it exists, else None."""
    for agent_id, entry in config.agents.entries.items():
        if entry.default:
            return agent_id
    return "main" if "main" in config.agents.entries else None


def _agent_model_maps(
    config: ClawConfig, agent_id: str | None
) -> list[tuple[str, dict[str, AgentModelEntry]]]:
    maps: list[tuple[str, dict[str, AgentModelEntry]]] = []
    if agent_id is not None:
        entry = config.agents.entries.get(agent_id)
        if entry is not None:
            maps.append((f"agents.entries.{agent_id}.models", entry.models))
    maps.append(("agents.defaults.models", config.agents.defaults.models))
    return maps


def _resolve_agent_map_policy(
    config: ClawConfig, agent_id: str | None, provider: str, model_id: str | None,
    kind: Literal["exact", "provider-wildcard"],
) -> ConfiguredRuntimePolicy | Literal["ambiguous"] | None:
    if model_id is None and kind == "exact":
        return None
    for prefix, models in _agent_model_maps(config, agent_id):
        matches: list[tuple[str, str, AgentModelEntry]] = []
        for key, entry in models.items():
            if not _has_policy(entry) or _match_kind(key, provider, model_id or "") != kind:
                continue
            head, sep, _ = key.strip().partition("/")
            matches.append((head.strip().lower() if sep else "", key, entry))
        if not matches:
            continue
        preferred = [m for m in matches if provider and m[0] == provider]
        candidates = preferred or matches
        first = candidates[0]
        if not provider and any(m[0] != first[0] for m in candidates):
            # a providerless id naming entries of different providers: never guess
            return "ambiguous"
        assert first[2].agent_runtime is not None and first[2].agent_runtime.id is not None
        return ConfiguredRuntimePolicy(
            runtime_id=first[2].agent_runtime.id,
            source="model",
            scope=f'{prefix}["{first[1]}"].agentRuntime',
            matched_provider=first[0] or provider or None,
        )
    return None


def qa_forced_runtime(env: Mapping[str, str]) -> str | None:
    """The private-QA forced runtime (`openclaw` or `codex`), or None."""
    for flag, name in QA_FORCE_ENV_NAMES:
        if env.get(flag) == "1":
            forced = (env.get(name) or "").strip().lower()
            if forced in _QA_FORCEABLE:
                return forced
    return None


def resolve_model_runtime_policy(
    config: ClawConfig | None,
    *,
    provider: str | None,
    model_id: str | None,
    agent_id: str | None = None,
    env: Mapping[str, str] | None = None,
) -> ConfiguredRuntimePolicy | None:
    """The authored runtime policy for this agent/provider/model, or None (auto)."""
    env = os.environ if env is None else env
    forced = qa_forced_runtime(env)
    if forced is not None:
        return ConfiguredRuntimePolicy(forced, "model", "environment", forced_by_environment=True)
    if config is None:
        return None
    effective = _provider_id(provider)
    if not effective and model_id and "/" in model_id.strip():
        effective = _provider_id(model_id.strip().partition("/")[0])
    normalized = normalize_model_id_for_provider(effective or None, model_id)
    agent = agent_id if agent_id is not None else default_agent_id(config)

    exact = _resolve_agent_map_policy(config, agent, effective, normalized, "exact")
    if exact == "ambiguous":
        return None
    if exact is not None:
        return exact

    provider_config = config.models.providers.get(effective) if effective else None
    if provider_config is not None and normalized is not None:
        for index, row in enumerate(provider_config.models):
            runtime = row.agent_runtime
            has = runtime is not None and runtime.id is not None and runtime.id.strip() != ""
            if has and _match_kind(row.id, effective, normalized) == "exact":
                assert runtime is not None and runtime.id is not None
                return ConfiguredRuntimePolicy(
                    runtime.id, "model", f"models.providers.{effective}.models[{index}].agentRuntime",
                    matched_provider=effective,
                )

    wildcard = _resolve_agent_map_policy(config, agent, effective, normalized, "provider-wildcard")
    if isinstance(wildcard, ConfiguredRuntimePolicy):
        return wildcard

    if provider_config is not None:
        runtime = provider_config.agent_runtime
        if runtime is not None and runtime.id is not None and runtime.id.strip():
            return ConfiguredRuntimePolicy(
                runtime.id, "provider", f"models.providers.{effective}.agentRuntime",
                matched_provider=effective,
            )
    return None


def implicit_openai_runtime(
    config: ClawConfig | None,
    *,
    provider: str,
    model_id: str | None,
    agent_id: str | None = None,
    model_provider: ModelProviderFacts | None = None,
) -> str | None:
    """`codex` when OpenAI's route contract allows the implicit Codex runtime, else None.

    Only the exact official HTTPS Responses routes with no authored request override
    qualify; the `openai/` prefix alone never does.
    """
    if _provider_id(provider) != "openai":
        return None
    facts = model_provider or resolve_route_facts(config, "openai", model_id, agent_id=agent_id)
    if facts is None:
        return None
    verdict = classify_openai_route(facts.api, facts.base_url, facts.request_transport_overrides)
    if verdict != "codex-compatible":
        return None
    # a prepared route that declares its compatibility still has the last word
    if model_provider is not None and model_provider.runtime_policy is not None:
        return "codex" if "codex" in model_provider.runtime_policy.compatible_ids else None
    return "codex"


def resolve_harness_policy(
    config: ClawConfig | None,
    *,
    provider: str | None,
    model_id: str | None,
    agent_id: str | None = None,
    env: Mapping[str, str] | None = None,
    model_provider: ModelProviderFacts | None = None,
    auth_runtime: str | None = None,
    provider_routes: Mapping[str, Sequence[ProviderRoute]] | None = None,
) -> RuntimePolicy:
    """The desired runtime: configured policy, else the implicit runtimes, else auto.

    `auth_runtime` is the CLI runtime the credentials in use select (source `auth`).
    `provider_routes` is accepted for symmetry with the support builder; OpenAI's
    implicit contract is provider-owned and does not read plugin routes.
    """
    del provider_routes
    configured = resolve_model_runtime_policy(
        config, provider=provider, model_id=model_id, agent_id=agent_id, env=env
    )
    if configured is not None:
        runtime = normalize_runtime_id(configured.runtime_id)
        if runtime != AUTO_RUNTIME_ID or configured.forced_by_environment:
            return RuntimePolicy(
                runtime=runtime,
                source=configured.source,
                forced_by_environment=configured.forced_by_environment,
                scope=configured.scope,
            )
    if auth_runtime is not None and auth_runtime.strip():
        return RuntimePolicy(runtime=normalize_runtime_id(auth_runtime), source="auth")
    effective = _provider_id(provider)
    if not effective and model_id and "/" in model_id:
        effective = _provider_id(model_id.partition("/")[0])
    implicit = implicit_openai_runtime(
        config, provider=effective, model_id=model_id, agent_id=agent_id,
        model_provider=model_provider,
    )
    if implicit is not None:
        return RuntimePolicy(runtime=implicit, source="implicit")
    if configured is not None:
        # an explicit `auto` stays attributed to the scope that wrote it
        return RuntimePolicy(runtime=AUTO_RUNTIME_ID, source=configured.source,
                             scope=configured.scope)
    return RuntimePolicy(runtime=AUTO_RUNTIME_ID, source="implicit")
