"""The host's plugins: loaded once, and the services they feed.

`Host` owns one `PluginRuntime`. It loads the bundled and configured plugins once and
registers the built-in `openclaw` harness beside theirs; what they registered feeds two
services the turn runner asks (`clawharness.attempt.services`): `selector`
(`HarnessSelector`: which harness runs a route) and `hooks` (`PluginHooks`: tool-result
middleware, agent_end side effects). The runtime itself answers who takes part in a
session hook (`harnesses_with`) and disposes of the harnesses at shutdown. The agents'
tools and setup follow from the config alone, so they are the host's
(`clawharness.tools.agent_tools.AgentTools`, `clawharness.attempt.agent_setup.AgentSetup`).
"""

from __future__ import annotations

import logging
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from clawharness.config.schema import ClawConfig
from clawharness.harness.registry import HarnessRegistry
from clawharness.harness.types import AgentHarness
from clawharness.plugins.deferred import DeferredHarness
from clawharness.plugins.entry import PluginRegistrations
from clawharness.plugins.hooks import PluginHooks
from clawharness.plugins.loader import PluginLoadResult, load_plugins
from clawharness.plugins.selector import HarnessSelector
from clawharness.store import Store

if TYPE_CHECKING:
    from clawharness.sessions.lifecycle import SessionParticipant

__all__ = ["PluginRuntime"]

log = logging.getLogger("clawharness.plugins")


class PluginRuntime:
    """Loaded plugins of one host, and the services they feed."""

    def __init__(self, config: ClawConfig, *, state_dir: Path, env: Mapping[str, str],
                 builtin: AgentHarness) -> None:
        self.config = config
        self.state_dir = state_dir
        #: the built-in harness, handed in by the host (the core does not import a harness)
        self.builtin = builtin
        self.registry = HarnessRegistry(builtin=self.builtin)
        self.registrations = PluginRegistrations()
        self.load_result: PluginLoadResult | None = None
        #: which harness runs a route
        self.selector = HarnessSelector(config, self.registry, env=env)
        #: what the plugins do to a turn's tool results and after it ends
        self.hooks = PluginHooks()

    def load(self, store: Store | None = None) -> PluginLoadResult:
        """Load plugins once; `store` is lent to them for plugin state."""
        if self.load_result is None:
            self.load_result = load_plugins(self.config, registry=self.registry,
                                            state_dir=self.state_dir, store=store)
            self.registrations = self.load_result.registrations
            self.selector.registrations = self.hooks.registrations = self.registrations
        return self.load_result

    async def dispose(self) -> None:
        for registered in self.registry.list():
            dispose = getattr(registered.harness, "dispose", None)
            if callable(dispose):
                try:
                    outcome = dispose()
                    if hasattr(outcome, "__await__"):
                        await outcome
                except Exception as exc:  # shutting down: report, keep going
                    log.warning("dispose of harness %s failed: %s", registered.id, exc)
        for _owner, bindings in self.registrations.session_bindings:
            try:
                await bindings.close()
            except Exception as exc:
                log.warning("closing %s failed: %s", bindings.namespace, exc)

    def harnesses(self) -> Iterator[AgentHarness]:
        yield self.builtin
        for registered in self.registry.list():
            yield registered.harness

    def harnesses_with(self, capability: str) -> list[SessionParticipant]:
        """Who takes part in a session hook (`reset`, `with_session_deletion`,
        `with_session_context_reset`): every harness that has it, then every set of
        session bindings a plugin registered (the host removes those with the session,
        so a harness need not write the hook itself). A bundled plugin not imported yet
        is imported now: its harness and bindings take part too."""
        for registered in self.registry.list():
            if isinstance(registered.harness, DeferredHarness):
                registered.harness.materialize()
        found: list[SessionParticipant] = [
            h for h in self.harnesses() if callable(getattr(h, capability, None))]
        found.extend(bindings for _owner, bindings in self.registrations.session_bindings
                     if callable(getattr(bindings, capability, None)))
        return found
