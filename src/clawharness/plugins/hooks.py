"""The plugins' hooks on a turn (`attempt.services.TurnHooks`): tool-result middleware
bound per runtime, and the agent_end side effects."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from clawharness.harness.types import TransformToolResult
from clawharness.plugins.entry import PluginRegistrations

# the middleware runner and the agent_end side effects are imported when a plugin
# registered one (a host that runs no turn, as `status`, imports neither)
if TYPE_CHECKING:
    from clawharness.records.agent_end import AgentEnd

__all__ = ["PluginHooks"]


class PluginHooks:
    """Tool-result middleware and agent_end hooks the plugins registered."""

    def __init__(self) -> None:
        #: what the plugins registered (`PluginRuntime.load` replaces it)
        self.registrations = PluginRegistrations()

    def tool_result_transform(self, runtime_id: str) -> TransformToolResult | None:
        """Bind tool-result middleware for one runtime; None when none applies to it."""
        registrations = [m for m in self.registrations.middlewares
                         if runtime_id in m.runtimes]
        if not registrations:
            return None
        declared = self.middleware_runtimes()
        from clawharness.tools.middleware import apply_tool_result_middleware

        async def transform(tool: str, call_id: str, args: dict[str, Any],
                            result: dict[str, Any], is_error: bool) -> dict[str, Any]:
            outcome = await apply_tool_result_middleware(
                registrations, runtime_id, tool, result, declared_runtimes=declared,
                tool_call_id=call_id, args=args, is_error=is_error)
            return outcome.result

        return transform

    def middleware_runtimes(self) -> dict[str, tuple[str, ...]]:
        """Each plugin's middleware runtimes. `PluginApi` admitted a registration only for
        runtimes its manifest declares, so the registrations are the declared set."""
        declared: dict[str, list[str]] = {}
        for m in self.registrations.middlewares:
            declared.setdefault(m.owner_plugin_id, []).extend(m.runtimes)
        return {plugin: tuple(dict.fromkeys(ids)) for plugin, ids in declared.items()}

    @property
    def listens_after_turn(self) -> bool:
        """Whether any agent_end hook is registered (no payload is built for none)."""
        return bool(self.registrations.agent_end_hooks)

    def after_turn(self, payload: AgentEnd) -> None:
        """Start the agent_end side effects (never awaited by the reply path)."""
        hooks = self.registrations.agent_end_hooks
        if hooks:
            from clawharness.attempt.side_effects import (
                AgentEndHooks,
                run_agent_end_side_effects,
            )

            run_agent_end_side_effects(payload, AgentEndHooks(agent_end=tuple(hooks)))
