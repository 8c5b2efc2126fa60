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


class HarnessSelector:
    """Chooses a turn's harness among the host's registered harnesses."""

    def __init__(self, config: ClawConfig, registry: HarnessRegistry, *,
                 env: Mapping[str, str]) -> None:
        self.config = config
        self.registry = registry
        self.env = env
        #: what the plugins registered (`PluginRuntime.load` replaces it)
        self.registrations = PluginRegistrations()

    @property
    def providers(self) -> Mapping[str, Any]:
        """Providers registered by plugins (e.g. `acp`), by id."""
        return self.registrations.provider_routes()

    def select(self, *, agent_id: str, route: Route, pinned: str | None,
               session_key: str, override: str | None = None) -> SelectionDecision:
        """The harness for a turn on `route`: `pinned` is the session's harness,
        `override` a runtime chosen for the session before it has one (a fork's
        `--runtime`), checked against the route like an explicit runtime."""
        request = SelectionRequest(
            provider=route.model.provider, model_id=route.model.model_id, agent_id=agent_id,
            session_key=session_key, agent_harness_id=pinned,
            agent_harness_runtime_override=override,
            provider_owner_plugin_ids=self.registrations.provider_owner_plugin_ids(
                route.model.provider) or None,
        )
        decision = select_harness(self.config, self.registry, request, env=self.env,
                                  provider_routes=self.registrations.provider_routes())
        log_harness_selection(decision, request, debug=self.config.logging.debug)
        return decision
