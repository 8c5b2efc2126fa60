"""Registering a plugin as the host would, for the plugin's own tests.

`register_plugin(entry, state_dir=...)` runs `entry.register(api)` against a fresh
registry and returns what it registered (`RegisteredPlugin`): its harnesses, providers
and session bindings. `reset_session` / `delete_session` then drive the bindings through
the host's session hooks, exactly as `clawharness sessions reset` and `delete` do.
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from clawharness._json import JsonValue
from clawharness.errors import PluginError
from clawharness.harness.registry import HarnessRegistry
from clawharness.harness.runtime_ids import normalize_runtime_id
from clawharness.harness.types import AgentHarness, ToolResult, TransformToolResult
from clawharness.plugins.entry import (
    PluginApi,
    PluginEntry,
    PluginRegistrations,
    ProviderRegistration,
    ToolResultMiddlewareRegistration,
)
from clawharness.sessions.bindings.lifecycle import Commit, Rollback
from clawharness.sessions.bindings.session_bindings import SessionBindings
from clawharness.sessions.lifecycle import SessionHookParams
from clawharness.tools.middleware import apply_tool_result_middleware

__all__ = ["RegisteredPlugin", "register_plugin"]


@dataclass(frozen=True, slots=True)
class RegisteredPlugin:
    """What one plugin's `register(api)` registered."""

    plugin_id: str
    #: harness id -> harness
    harnesses: Mapping[str, AgentHarness]
    #: provider id -> its registrations
    providers: Mapping[str, tuple[ProviderRegistration, ...]]
    #: namespace (`<harness id>.bindings`) -> the bindings the host would manage
    session_bindings: Mapping[str, SessionBindings[Any]]
    #: the tool-result middleware it registered
    middlewares: tuple[ToolResultMiddlewareRegistration, ...] = ()

    def tool_result_transform(self, runtime_id: str) -> TransformToolResult | None:
        """The plugin's tool-result middleware bound for `runtime_id`, as the host binds
        it into `AttemptParams.transform_tool_result` (None when none applies)."""
        wanted = normalize_runtime_id(runtime_id)
        selected = [m for m in self.middlewares if wanted in m.runtimes]
        if not selected:
            return None
        declared = {self.plugin_id: tuple(dict.fromkeys(
            r for m in self.middlewares for r in m.runtimes))}

        async def transform(tool: str, call_id: str, args: dict[str, Any], result: ToolResult,
                            is_error: bool) -> ToolResult:
            outcome = await apply_tool_result_middleware(
                selected, wanted, tool, result, declared_runtimes=declared,
                tool_call_id=call_id, args=args, is_error=is_error)
            return outcome.result

        return transform

    def _hook(self, agent_id: str, session_key: str, reason: str) -> SessionHookParams:
        return SessionHookParams(agent_id=agent_id, session_key=session_key,
                                 session_id=f"{session_key}#test", reason=reason,
                                 store_url="test")

    async def reset_session(self, session_key: str, *, agent_id: str = "main") -> None:
        """What a host reset does to this plugin: every binding of the session cleared."""
        for bindings in self.session_bindings.values():
            await bindings.reset(self._hook(agent_id, session_key, "reset"))

    async def delete_session(self, session_key: str, *, agent_id: str = "main") -> None:
        """What a host deletion does to this plugin, with the host's transaction committed."""

        async def committed(commit: Commit, _rollback: Rollback) -> None:
            commit()

        for bindings in self.session_bindings.values():
            await bindings.with_session_deletion(
                self._hook(agent_id, session_key, "deleted"), committed)

    async def close(self) -> None:
        """Dispose the harnesses and close the bindings' stores."""
        for harness in self.harnesses.values():
            dispose = getattr(harness, "dispose", None)
            if callable(dispose):
                outcome = dispose()
                if inspect.isawaitable(outcome):
                    await outcome
        for bindings in self.session_bindings.values():
            await bindings.close()


def register_plugin(entry: PluginEntry, *, state_dir: str | Path,
                    config: Mapping[str, JsonValue] | None = None) -> RegisteredPlugin:
    """Run `entry.register(api)` as the host would (no host store: bindings keep a SQLite
    file under `state_dir`), and return what it registered."""
    if not isinstance(entry, PluginEntry):
        raise PluginError(f"register_plugin takes a PluginEntry (define_plugin_entry), got "
                          f"{type(entry).__name__}")
    registry = HarnessRegistry()
    registrations = PluginRegistrations()
    api = PluginApi(plugin_id=entry.id, registry=registry, registrations=registrations,
                    config=config, state_dir=Path(state_dir), contracts=entry.contracts,
                    middleware_trusted=True)
    outcome = entry.register(api)
    if inspect.isawaitable(outcome):
        raise PluginError(f'plugin "{entry.id}": register(api) must be synchronous')
    return RegisteredPlugin(
        plugin_id=entry.id,
        harnesses={r.id: r.harness for r in registry.list()},
        providers={pid: tuple(regs) for pid, regs in registrations.providers.items()},
        session_bindings={b.namespace: b for _owner, b in registrations.session_bindings},
        middlewares=tuple(registrations.middlewares),
    )
