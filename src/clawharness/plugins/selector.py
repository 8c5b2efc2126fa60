"""Harness selection over what the plugins registered: the registry of harnesses and the
providers plugins own (`attempt.services.HarnessChoice`). The decision itself is the pure
`clawharness.harness.selection.select_harness`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from clawharness.config.schema import ClawConfig
from clawharness.harness.registry import HarnessRegistry
from clawharness.harness.selection import (
    SelectionDecision,
    SelectionRequest,
    log_harness_selection,
    select_harness,
)
from clawharness.models.routes import Route
from clawharness.plugins.entry import PluginRegistrations

__all__ = ["HarnessSelector"]

#: decisions a selector keeps (agents x models x pins; forgotten all at once past this)
_MAX_DECISIONS = 512


class HarnessSelector:
    """Chooses a turn's harness among the host's registered harnesses."""

    def __init__(self, config: ClawConfig, registry: HarnessRegistry, *,
                 env: Mapping[str, str]) -> None:
        self.config = config
        self.registry = registry
        self.env = env
        #: what the plugins registered (`PluginRuntime.load` replaces it)
        self.registrations = PluginRegistrations()
        #: decisions made, by (agent, provider, model, pin, override), valid while what
        #: they were made from is (`_basis`)
        self._decisions: dict[tuple[str, str, str, str | None, str | None],
                              SelectionDecision] = {}
        self._basis: tuple[object, ...] = ()

    @property
    def providers(self) -> Mapping[str, Any]:
        """Providers registered by plugins (e.g. `acp`), by id."""
        return self.registrations.provider_routes()

    def select(self, *, agent_id: str, route: Route, pinned: str | None,
               session_key: str, override: str | None = None) -> SelectionDecision:
        """The harness for a turn on `route`: `pinned` is the session's harness,
        `override` a runtime chosen for the session before it has one (a fork's
        `--runtime`), checked against the route like an explicit runtime.

        The decision reads the config, the environment, the registered harnesses and
        providers, and the route's provider and model, never the session itself (a
        harness's `supports(ctx)` answers from `ctx`, the route's facts), so a decision
        is made once per agent, route, pin and override and kept while none of those
        changes; a refusal (an error) is not kept."""
        provider, model_id = route.model.provider, route.model.model_id
        registrations = self.registrations
        config, registry = self.config, self.registry
        basis = self._basis
        if (not basis or basis[0] is not config or basis[1] is not self.env
                or basis[2] is not registry.builtin or basis[3] is not registry.list()
                or basis[4] is not registrations or basis[5] != registrations.generation):
            self._decisions.clear()
            self._basis = (config, self.env, registry.builtin, registry.list(),
                           registrations, registrations.generation)
        key = (agent_id, provider, model_id, pinned, override)
        decision = self._decisions.get(key)
        debug = config.logging.debug
        if decision is not None and not debug:
            return decision
        request = SelectionRequest(
            provider=provider, model_id=model_id, agent_id=agent_id,
            session_key=session_key, agent_harness_id=pinned,
            agent_harness_runtime_override=override,
            provider_owner_plugin_ids=registrations.provider_owner_plugin_ids(provider) or None,
        )
        if decision is None:
            decision = select_harness(config, registry, request, env=self.env,
                                      provider_routes=registrations.provider_routes())
            if len(self._decisions) >= _MAX_DECISIONS:
                self._decisions.clear()
            self._decisions[key] = decision
        log_harness_selection(decision, request, debug=debug)
        return decision
