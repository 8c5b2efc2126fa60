"""The host's view of its plugins: harness registry, providers, tools and policy.

`Host` owns one `PluginRuntime`. It loads the bundled and configured plugins once,
registers the built-in `openclaw` harness, and answers the per-turn questions the turn
runner asks (which harness, which tools and policy, which runtime plan). The decisions
themselves are the pure functions in `clawharness.harness.*` and `clawharness.tools.*`.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from clawharness.attempt.outcomes import ToolTerminalObserver
from clawharness.attempt.side_effects import AgentEndHooks, run_agent_end_side_effects
from clawharness.attempt.transcript_contract import check_transcript_contract
from clawharness.attempt.validate import validate_attempt_result
from clawharness.config.schema import ClawConfig, ToolsConfig
from clawharness.delivery.reply_content import ReplyPayload
from clawharness.delivery.silent import is_silent_payload
from clawharness.harness.gates import ToolPolicyGate, ToolPolicyLayer, evaluate_tool_policy_gate
from clawharness.harness.registry import HarnessRegistry
from clawharness.harness.selection import (
    SelectionDecision,
    SelectionRequest,
    log_harness_selection,
    select_harness,
)
from clawharness.harness.types import AgentHarness, AttemptResult, ToolSpec
from clawharness.models.routes import Route
from clawharness.plugins.entry import PluginRegistrations
from clawharness.plugins.loader import PluginLoadResult, load_plugins
from clawharness.records.agent_end import AgentEnd
from clawharness.runtime_plan.plan import AgentRuntimePlan, build_agent_runtime_plan
from clawharness.sessions.lifecycle import SessionParticipant
from clawharness.store import Store
from clawharness.tools.builtin import core_tool_specs
from clawharness.tools.middleware import apply_tool_result_middleware
from clawharness.tools.policy import TOOL_PROFILES, EffectiveToolPolicy
from clawharness.tools.restriction import ToolRestriction
from clawharness.tools.sandbox.runner import SandboxService

__all__ = ["PluginRuntime"]

log = logging.getLogger("clawharness.plugins")


DEFAULT_SYSTEM_PROMPT = (
    "You are a helpful agent. You can use tools to read and change files in your workspace "
    "and to run commands. Be concise."
)


class PluginRuntime:
    """Loaded plugins and the per-agent tool surface of one host."""

    def __init__(self, config: ClawConfig, *, state_dir: Path, env: Mapping[str, str],
                 builtin: AgentHarness, store_url: str | None = None,
                 config_path: Path | None = None) -> None:
        self.config = config
        self.state_dir = state_dir
        #: where exec runs (agents.*.sandbox); it never shows the store or the config file
        self.sandbox = SandboxService(config, state_dir=state_dir, store_url=store_url,
                                      config_path=config_path)
        self.env = env
        #: the built-in harness, handed in by the host (the core does not import a harness)
        self.builtin = builtin
        self.registry = HarnessRegistry(builtin=self.builtin)
        self.registrations = PluginRegistrations()
        self.load_result: PluginLoadResult | None = None
        self._tool_specs: dict[str, tuple[ToolSpec, ...]] = {}
        self._policies: dict[str, EffectiveToolPolicy] = {}
        self._plans: dict[tuple[Any, ...], AgentRuntimePlan] = {}
        self._gates: dict[tuple[int, bool, str], tuple[Any, ToolPolicyGate]] = {}

    # loading ---------------------------------------------------------------------------

    def load(self, store: Store | None = None) -> PluginLoadResult:
        """Load plugins once; `store` is lent to them for plugin state."""
        if self.load_result is None:
            self.load_result = load_plugins(self.config, registry=self.registry,
                                            state_dir=self.state_dir, store=store)
            self.registrations = self.load_result.registrations
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

    @property
    def providers(self) -> Mapping[str, Any]:
        """Providers registered by plugins (e.g. `acp`), by id."""
        return self.registrations.provider_routes()

    def harnesses(self) -> Iterator[AgentHarness]:
        yield self.builtin
        for registered in self.registry.list():
            yield registered.harness

    def harnesses_with(self, capability: str) -> list[SessionParticipant]:
        """Who takes part in a session hook (`reset`, `with_session_deletion`,
        `with_session_context_reset`): every harness that has it, then every set of
        session bindings a plugin registered (the host removes those with the session,
        so a harness need not write the hook itself)."""
        found: list[SessionParticipant] = [
            h for h in self.harnesses() if callable(getattr(h, capability, None))]
        found.extend(bindings for _owner, bindings in self.registrations.session_bindings
                     if callable(getattr(bindings, capability, None)))
        return found

    def plugin_config(self, plugin_id: str | None) -> Mapping[str, Any]:
        if plugin_id and plugin_id in self.config.plugins.entries:
            return self.config.plugins.entries[plugin_id].config
        return {}

    # selection -------------------------------------------------------------------------

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

    # tools and policy -------------------------------------------------------------------

    def _agent_tools(self, agent_id: str) -> ToolsConfig | None:
        entry = self.config.agents.entries.get(agent_id)
        return entry.tools if entry is not None else None

    def tool_policy(self, agent_id: str, workspace_dir: str | None = None) -> EffectiveToolPolicy:
        policy = self._policies.get(agent_id)
        if policy is None:
            policy = EffectiveToolPolicy(self.config.tools, agent=self._agent_tools(agent_id),
                                         agent_id=agent_id, workspace_dir=workspace_dir)
            self._policies[agent_id] = policy
        return policy

    def tool_specs(self, agent_id: str) -> tuple[ToolSpec, ...]:
        specs = self._tool_specs.get(agent_id)
        if specs is None:
            policy = self.tool_policy(agent_id)
            specs = tuple(s for s in core_tool_specs(self.config.tools,
                                                     self.sandbox.for_agent(agent_id))
                          if policy.check(s.name) is None)
            self._tool_specs[agent_id] = specs
        return specs

    def policy_layers(self, agent_id: str) -> list[ToolPolicyLayer]:
        layers: list[ToolPolicyLayer] = []
        for name, tools in (("tools", self.config.tools), ("agent", self._agent_tools(agent_id))):
            if tools is None:
                continue
            if tools.allow is not None or tools.deny:
                allow = tuple(tools.allow) + tuple(tools.also_allow) if tools.allow is not None else None
                layers.append(ToolPolicyLayer(name, "runtime", allow=allow, deny=tuple(tools.deny)))
            if tools.profile:
                profile = TOOL_PROFILES.get(tools.profile)
                if profile is not None:
                    layers.append(ToolPolicyLayer(f"profile:{tools.profile}", "profile",
                                                  allow=tuple(profile) + tuple(tools.also_allow)))
        return layers

    def tool_policy_gate(self, decision: SelectionDecision, agent_id: str,
                         restriction: ToolRestriction | None = None) -> ToolPolicyGate:
        """The pre-run gate's verdict on the harness, under the agent's policy layers and
        a turn's `restriction` (a front's narrowing, weighed as one more layer)."""
        extra = restriction.gate_layer() if restriction is not None else None
        if extra is not None:
            return evaluate_tool_policy_gate(decision.harness,
                                             [*self.policy_layers(agent_id), extra],
                                             builtin=decision.builtin)
        # the verdict depends only on the harness and this host's (fixed) config
        key = (id(decision.harness), decision.builtin, agent_id)
        cached = self._gates.get(key)
        if cached is not None and cached[0] is decision.harness:
            return cached[1]
        gate = evaluate_tool_policy_gate(decision.harness, self.policy_layers(agent_id),
                                         builtin=decision.builtin)
        self._gates[key] = (decision.harness, gate)
        return gate

    def new_tool_observer(self, run_id: str) -> ToolTerminalObserver:
        return ToolTerminalObserver(run_id)

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

    # results -----------------------------------------------------------------------------

    def tool_result_transform(self, runtime_id: str) -> Any:
        """Bind tool-result middleware for one runtime; None when none applies to it."""
        registrations = [m for m in self.registrations.middlewares
                         if runtime_id in m.runtimes]
        if not registrations:
            return None
        declared = self.middleware_runtimes()

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

    def after_turn(self, payload: AgentEnd) -> None:
        """Start the agent_end side effects (never awaited by the reply path)."""
        hooks = self.registrations.agent_end_hooks
        if hooks:
            run_agent_end_side_effects(payload, AgentEndHooks(agent_end=tuple(hooks)))

    def validate_result(self, result: AttemptResult) -> AttemptResult:
        """The host's checks of a result: the attempt-result rules, then the transcript
        contract (a finished attempt's reply must be in its transcript messages)."""
        checked = validate_attempt_result(result)
        check_transcript_contract(checked)
        return checked

    @staticmethod
    def is_silent(text: str) -> bool:
        return bool(text) and is_silent_payload(ReplyPayload(text=text))
