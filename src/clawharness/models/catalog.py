"""`clawharness models list`: the configured models, per provider, as one agent sees them.

Every model row of `models.providers.<id>.models[]`, plus every ref an agent names
(primary, fallbacks, its `models` map) that no provider row lists, each with its place in
the agent's config (default, fallback N, aliases) and the runtime a turn on it would run
on, from the same selection `status` uses. Pure: config, registry and env in, a
`ModelCatalog` out. JSON shape: docs/cli.md.
"""

from __future__ import annotations

import os
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from clawharness.config.schema import AgentModelEntry, ClawConfig, ModelRefSetting
from clawharness.errors import ClawHarnessError
from clawharness.harness.policy import default_agent_id
from clawharness.harness.registry import HarnessRegistry
from clawharness.harness.status import runtime_for_ref
from clawharness.harness.support import ProviderRoute
from clawharness.harness.types import ResolvedModel
from clawharness.models.builtin_providers import BUILTIN_PROVIDERS
from clawharness.names.model_refs import parse_model_ref
from clawharness.providers.diagnostics import endpoint_url
from clawharness.providers.registry import resolve_api

__all__ = ["CATALOG_JSON_VERSION", "CatalogModel", "ModelCatalog", "build_model_catalog"]

CATALOG_JSON_VERSION = 1


@dataclass(frozen=True, slots=True)
class CatalogModel:
    """One model ref: where it is configured, its role for the agent, its runtime."""

    ref: str
    provider: str
    model_id: str
    name: str | None = None
    api: str | None = None
    url: str | None = None
    #: listed in `models.providers.<provider>.models[]` (else only named by an agent)
    listed: bool = True
    default: bool = False
    #: 1-based position in the agent's fallbacks (None when not a fallback)
    fallback: int | None = None
    aliases: tuple[str, ...] = ()
    runtime: str | None = None
    runtime_label: str | None = None
    reason: str | None = None
    error: str | None = None

    @property
    def tags(self) -> tuple[str, ...]:
        tags: list[str] = []
        if self.default:
            tags.append("default")
        if self.fallback is not None:
            tags.append(f"fallback {self.fallback}")
        tags.extend(f"alias {a}" for a in self.aliases)
        if not self.listed:
            tags.append("not in models.providers")
        return tuple(tags)

    def as_dict(self) -> dict[str, Any]:
        return {
            "ref": self.ref, "provider": self.provider, "modelId": self.model_id,
            "name": self.name, "api": self.api, "url": self.url, "listed": self.listed,
            "default": self.default, "fallback": self.fallback, "aliases": list(self.aliases),
            "runtime": self.runtime, "runtimeLabel": self.runtime_label,
            "reason": self.reason, "error": self.error,
        }


@dataclass(frozen=True, slots=True)
class ModelCatalog:
    """Everything `clawharness models list` shows, for one agent."""

    agent_id: str
    default: str | None
    fallbacks: tuple[str, ...]
    models: tuple[CatalogModel, ...]
    warnings: tuple[str, ...] = field(default_factory=tuple)

    def to_json(self) -> dict[str, Any]:
        return {
            "version": CATALOG_JSON_VERSION, "agentId": self.agent_id,
            "default": self.default, "fallbacks": list(self.fallbacks),
            "models": [m.as_dict() for m in self.models], "warnings": list(self.warnings),
        }


def _setting(config: ClawConfig, agent_id: str) -> ModelRefSetting | None:
    entry = config.agents.entries.get(agent_id)
    if entry is not None and entry.model is not None:
        return entry.model
    return config.agents.defaults.model


def _model_maps(config: ClawConfig, agent_id: str) -> list[Mapping[str, AgentModelEntry]]:
    entry = config.agents.entries.get(agent_id)
    return [entry.models if entry is not None else {}, config.agents.defaults.models]


def build_model_catalog(
    config: ClawConfig,
    registry: HarnessRegistry,
    *,
    agent_id: str | None = None,
    env: Mapping[str, str] | None = None,
    provider_routes: Mapping[str, Sequence[ProviderRoute]] | None = None,
    extra_providers: Collection[str] = (),
) -> ModelCatalog:
    """The catalog for `agent_id` (else the default agent)."""
    agent = agent_id or default_agent_id(config) or "main"
    env = os.environ if env is None else env
    models_by_provider = {p: [m.id for m in cfg.models]
                          for p, cfg in config.models.providers.items()}
    warnings: list[str] = []

    def canonical(text: str, where: str) -> str | None:
        try:
            return str(parse_model_ref(text, models_by_provider=models_by_provider))
        except ClawHarnessError as exc:
            warnings.append(f"{where}: {exc}")
            return None

    setting = _setting(config, agent)
    where = (f"agents.entries.{agent}.model" if config.agents.entries.get(agent) is not None
             and config.agents.entries[agent].model is not None else "agents.defaults.model")
    default = canonical(setting.primary, f"{where}.primary") if setting and setting.primary \
        else None
    fallbacks = [ref for i, text in enumerate(setting.fallbacks if setting else [])
                 if (ref := canonical(text, f"{where}.fallbacks[{i}]")) is not None]
    aliases: dict[str, list[str]] = {}
    named: list[str] = []
    for models in _model_maps(config, agent):
        for key, entry in models.items():
            if key.strip().endswith("/*"):
                continue
            ref = canonical(key, f"models map key {key!r}")
            if ref is None:
                continue
            named.append(ref)
            if entry.alias and entry.alias not in aliases.setdefault(ref, []):
                aliases[ref].append(entry.alias)

    rows: dict[str, CatalogModel] = {}
    for provider_id, provider in config.models.providers.items():
        for row in provider.models:
            ref = f"{provider_id}/{row.id}"
            rows[ref] = CatalogModel(
                ref=ref, provider=provider_id, model_id=row.id, name=row.name,
                api=row.api or provider.api, url=row.base_url or provider.base_url)
    known = set(BUILTIN_PROVIDERS) | set(config.models.providers) | set(extra_providers)
    for ref in [*(x for x in [default] if x), *fallbacks, *named]:
        if ref in rows:
            continue
        provider_id, _, model_id = ref.partition("/")
        configured = config.models.providers.get(provider_id)
        rows[ref] = CatalogModel(
            ref=ref, provider=provider_id, model_id=model_id, listed=False,
            api=configured.api if configured else None,
            url=configured.base_url if configured else None,
            error=None if provider_id in known else f"unknown provider {provider_id!r}")

    out: list[CatalogModel] = []
    for ref, item in rows.items():
        api = item.api or resolve_api(ResolvedModel(item.provider, item.model_id))
        url = endpoint_url(ResolvedModel(item.provider, item.model_id, base_url=item.url), api)
        status = runtime_for_ref(config, registry, ref, agent, env=env,
                                 provider_routes=provider_routes)
        out.append(CatalogModel(
            ref=ref, provider=item.provider, model_id=item.model_id, name=item.name,
            api=api, url=url, listed=item.listed, default=ref == default,
            fallback=fallbacks.index(ref) + 1 if ref in fallbacks else None,
            aliases=tuple(aliases.get(ref, ())), runtime=status.runtime,
            runtime_label=status.runtime_label, reason=status.reason,
            error=item.error or status.error))
    # per provider, in config order (then the providers only agents name); rows in order
    first_seen: dict[str, int] = {}
    for item in out:
        first_seen.setdefault(item.provider, len(first_seen))
    out.sort(key=lambda m: first_seen[m.provider])
    return ModelCatalog(agent, default, tuple(fallbacks), tuple(out), tuple(warnings))
