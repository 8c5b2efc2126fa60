"""Bundled plugins registered by what they say of themselves, imported at first use.

`BUNDLED_FACTS` names, for a bundled plugin, the harnesses and providers its
`register(api)` registers, and what selection and `clawharness status` read of them
(id, label, `auto_selection`). Once the gate admits such a plugin and its API floor is
met, the loader registers a `DeferredHarness` per harness and the providers the table
declares, without importing the plugin: a host that only reports (`status`) or runs its
turns on another harness never imports it.

The first time anything needs a harness's code (its `supports` for a route it may
claim, a turn, a session hook, any other attribute) the plugin is imported and its
`register(api)` runs against a registry of its own: its harnesses then answer for their
stand-ins (which stay registered, so a selection made before still names the same
object), its providers replace the declared ones and its session bindings join the
host's. What it registered must be what the table says (same harnesses with the same
label and `auto_selection`, same providers and routes, no tool-result middleware and no
`agent_end` hook), else `PluginError`; `tests/plugins` holds the table to the plugins.
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from clawharness._json import JsonValue
from clawharness.errors import PluginError
from clawharness.harness import ProviderRoute, auto_selection_provider_ids
from clawharness.harness.registry import HarnessRegistry
from clawharness.harness.types import (
    AgentHarness,
    AttemptParams,
    AttemptResult,
    RuntimePolicyFact,
    SupportContext,
    SupportResult,
)

if TYPE_CHECKING:
    from clawharness.plugins.entry import (
        PluginRegistrations,
        ProviderRegistration,
    )
    from clawharness.store import Store

__all__ = ["BUNDLED_FACTS", "AutoSelection", "DeferredHarness", "DeferredPlugin", "HarnessFacts",
           "PluginFacts", "ProviderFacts"]


@dataclass(frozen=True, slots=True)
class HarnessFacts:
    """What selection and `status` read of one harness before its code is imported."""

    id: str
    label: str
    #: its `auto_selection` providerIds: () explicit-only, None when it has none (auto
    #: mode then asks `supports`, which imports the plugin)
    auto_provider_ids: tuple[str, ...] | None = None


@dataclass(frozen=True, slots=True)
class ProviderFacts:
    """A provider the plugin registers, with its one route's compatible runtimes."""

    id: str
    label: str | None
    compatible_runtime_ids: tuple[str, ...]

    def route(self) -> ProviderRoute:
        return ProviderRoute(runtime_policy=RuntimePolicyFact(self.compatible_runtime_ids))


@dataclass(frozen=True, slots=True)
class PluginFacts:
    """What a bundled plugin's `register(api)` registers (see the module's doc)."""

    name: str
    harnesses: tuple[HarnessFacts, ...]
    providers: tuple[ProviderFacts, ...] = ()


#: bundled plugins registered from these facts, their module imported at first use
BUNDLED_FACTS: Mapping[str, PluginFacts] = {
    "clawharness.harnesses.cli.plugin:entry": PluginFacts(
        "Claude Code CLI", (HarnessFacts("claude-cli", "Claude Code CLI", ()),)),
    "clawharness.harnesses.acp.plugin:entry": PluginFacts(
        "Agent Client Protocol", (HarnessFacts("acp", "Agent Client Protocol", ("acp",)),),
        (ProviderFacts("acp", "Agent Client Protocol agents", ("acp",)),)),
}


@dataclass(frozen=True, slots=True)
class AutoSelection:
    """A stand-in's `auto_selection` (read as the harness's own is)."""

    provider_ids: tuple[str, ...]


class DeferredHarness:
    """A bundled plugin's harness, registered before its code is imported: it answers
    `id`, `label` and `auto_selection` itself and everything else from the harness the
    plugin registers, importing the plugin the first time it is asked."""

    #: selection's debug candidates read it of every harness; the plugin's harness has
    #: none (`DeferredPlugin.load` checks), so the owner plugin's id is shown
    plugin_id: str | None = None

    def __init__(self, facts: HarnessFacts, plugin: DeferredPlugin) -> None:
        self.id = facts.id
        self.label = facts.label
        self.auto_selection = (None if facts.auto_provider_ids is None
                               else AutoSelection(facts.auto_provider_ids))
        self._plugin = plugin
        self._target: AgentHarness | None = None

    @property
    def loaded(self) -> bool:
        """Whether the plugin's harness is here (its module imported)."""
        return self._target is not None

    def materialize(self) -> AgentHarness:
        """The plugin's harness, importing and registering the plugin the first time."""
        if self._target is None:
            self._plugin.load()
        assert self._target is not None
        return self._target

    def supports(self, ctx: SupportContext) -> SupportResult:
        return self.materialize().supports(ctx)

    async def run_attempt(self, params: AttemptParams) -> AttemptResult:
        return await self.materialize().run_attempt(params)

    async def dispose(self) -> None:
        """Dispose of the plugin's harness, when it was ever made."""
        dispose = getattr(self._target, "dispose", None)
        if callable(dispose):
            outcome = dispose()
            if inspect.isawaitable(outcome):
                await outcome

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") or name in ("_plugin", "_target"):
            raise AttributeError(name)
        return getattr(self.materialize(), name)

    def __repr__(self) -> str:
        return f"<DeferredHarness {self.id} {'loaded' if self.loaded else 'not loaded'}>"


class DeferredPlugin:
    """One bundled plugin registered from its facts; `load` imports and registers it."""

    def __init__(self, *, target: str, plugin_id: str, facts: PluginFacts,
                 registrations: PluginRegistrations, config: Mapping[str, JsonValue],
                 state_dir: Path, store: Store | None,
                 check: Callable[[str, bool, str | None], None],
                 rank: Callable[[str], int]) -> None:
        """`check(entry id, enabled by default, plugin API floor)` raises when the entry
        is not what the loader admitted (its `BUNDLED_ENTRIES` row, the host's API);
        `rank(plugin id)` is a plugin's place in the load order (the session bindings
        are kept in it, as when every plugin was imported at load)."""
        self.target = target
        self.plugin_id = plugin_id
        self.facts = facts
        self._registrations = registrations
        self._config = config
        self._state_dir = state_dir
        self._store = store
        self._check = check
        self._rank = rank
        self.stand_ins = tuple(DeferredHarness(h, self) for h in facts.harnesses)
        #: the provider registrations standing in for the plugin's own
        self.declared: tuple[ProviderRegistration, ...] = ()
        self._error: PluginError | None = None
        self.loaded = False

    def declare(self, registry: HarnessRegistry) -> None:
        """Register the stand-ins and the declared providers (nothing is imported)."""
        from clawharness.plugins.entry import ProviderRegistration

        for harness in self.stand_ins:
            registry.register(harness, owner_plugin_id=self.plugin_id)
            self._registrations.harness_owners[harness.id] = self.plugin_id
        self.declared = tuple(ProviderRegistration(p.id, self.plugin_id, p.label, (p.route(),))
                              for p in self.facts.providers)
        for registration in self.declared:
            self._registrations.providers.setdefault(registration.id, []).append(registration)

    def load(self) -> None:
        """Import the plugin and run its `register(api)` (once; a failure is raised again
        to every later use)."""
        if self.loaded:
            return
        if self._error is not None:
            raise self._error
        try:
            self._load()
        except Exception as exc:
            error = exc if isinstance(exc, PluginError) else PluginError(
                f'bundled plugin "{self.plugin_id}" failed to load: {type(exc).__name__}: {exc}')
            self._error = error
            raise error from exc

    def _load(self) -> None:
        from clawharness.plugins.entry import PluginApi, PluginEntry, PluginRegistrations

        module_name, _, attr = self.target.partition(":")
        entry = getattr(importlib.import_module(module_name), attr)
        if not isinstance(entry, PluginEntry):
            raise PluginError(f"{self.target}: {attr} is not a PluginEntry")
        self._check(entry.id, entry.enabled_by_default, entry.plugin_api)
        registry = HarnessRegistry()
        own = PluginRegistrations()
        api = PluginApi(plugin_id=entry.id, registry=registry, registrations=own,
                        config=self._config, state_dir=self._state_dir,
                        contracts=entry.contracts, middleware_trusted=True, store=self._store)
        outcome = entry.register(api)
        if inspect.isawaitable(outcome):
            if inspect.iscoroutine(outcome):
                outcome.close()
            raise PluginError(f'plugin "{entry.id}": register(api) must be synchronous')
        made = {registered.id: registered.harness for registered in registry.list()}
        self._agrees(made, own, entry.name)
        # commit: the stand-ins answer from the plugin's harnesses from now on
        shared = self._registrations
        for registration in self.declared:
            regs = shared.providers.get(registration.id, [])
            real = own.providers.pop(registration.id)
            at = next((i for i, r in enumerate(regs) if r is registration), len(regs))
            shared.providers[registration.id] = [*regs[:at], *real, *regs[at + 1:]]
        shared.session_bindings.extend(own.session_bindings)
        shared.session_bindings.sort(key=lambda owned: self._rank(owned[0]))
        for stand_in in self.stand_ins:
            stand_in._target = made[stand_in.id]
        self.loaded = True

    def _agrees(self, made: Mapping[str, AgentHarness], own: PluginRegistrations,
                name: str) -> None:
        """Raise unless the plugin registered what its facts say."""
        def differ(what: str) -> PluginError:
            return PluginError(f"{self.target}: {what} is not what BUNDLED_FACTS says")

        if name != self.facts.name:
            raise differ(f"its name {name!r}")
        if sorted(made) != sorted(h.id for h in self.facts.harnesses):
            raise differ(f"the harnesses it registers ({', '.join(sorted(made))})")
        for facts in self.facts.harnesses:
            harness = made[facts.id]
            found = auto_selection_provider_ids(harness)
            ids = None if found is None else tuple(found)
            if (harness.label, ids) != (facts.label, facts.auto_provider_ids):
                raise differ(f"harness {facts.id!r} (label, auto_selection)")
            if getattr(harness, "plugin_id", None) not in (None, self.plugin_id):
                raise differ(f"harness {facts.id!r}'s plugin_id")
        declared = {p.id: (p.label, (p.route(),)) for p in self.facts.providers}
        registered = {pid: [(r.label, r.routes) for r in regs]
                      for pid, regs in own.providers.items()}
        if registered != {pid: [facts] for pid, facts in declared.items()}:
            raise differ("the providers it registers")
        if own.middlewares or own.agent_end_hooks:
            raise differ("a tool-result middleware or agent_end hook")
