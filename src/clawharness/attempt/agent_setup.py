"""What an agent's attempt is set up with from the config: its system prompt, the
read-only runtime plan of a route, a plugin's own config. Built once, reused by every
turn (the plan once per route)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from clawharness.config.schema import ClawConfig
from clawharness.models.routes import Route
from clawharness.runtime_plan.plan import AgentRuntimePlan, build_agent_runtime_plan

__all__ = ["DEFAULT_SYSTEM_PROMPT", "AgentSetup"]

DEFAULT_SYSTEM_PROMPT = (
    "You are a helpful agent. You can use tools to read and change files in your workspace "
    "and to run commands. Be concise."
)


class AgentSetup:
    """Per-agent system prompts, runtime plans and plugin config of one host."""

    def __init__(self, config: ClawConfig) -> None:
        self.config = config
        self._plans: dict[tuple[Any, ...], AgentRuntimePlan] = {}

    def plugin_config(self, plugin_id: str | None) -> Mapping[str, Any]:
        """`plugins.entries.<id>.config` of the plugin that owns a harness ({}: none)."""
        if plugin_id and plugin_id in self.config.plugins.entries:
            return self.config.plugins.entries[plugin_id].config
        return {}

    def system_prompt(self, agent_id: str) -> str:
        entry = self.config.agents.entries.get(agent_id)
        return ((entry.system_prompt if entry else None)
                or self.config.agents.defaults.system_prompt or DEFAULT_SYSTEM_PROMPT)

    def runtime_plan(self, route: Route, harness_id: str | None, agent_id: str) -> AgentRuntimePlan:
        """The read-only plan for this route; built once per route and reused."""
        key = (route.model.provider, route.model.model_id, route.model.api, harness_id, agent_id)
        plan = self._plans.get(key)
        if plan is None:
            plan = build_agent_runtime_plan(
                provider=route.model.provider, model_id=route.model.model_id,
                model_api=route.model.api, harness_id=harness_id,
                model_params=self._model_params(route, agent_id),
            )
            self._plans[key] = plan
        return plan

    def _model_params(self, route: Route, agent_id: str) -> dict[str, Any]:
        """`agents.defaults.models["provider/model"].params`, then the agent's own."""
        key = f"{route.model.provider}/{route.model.model_id}"
        agents = self.config.agents
        merged: dict[str, Any] = {}
        entry = agents.entries.get(agent_id)
        for models in (agents.defaults.models, entry.models if entry is not None else {}):
            params = models[key].params if key in models else None
            if params:
                merged.update(params)
        return merged
