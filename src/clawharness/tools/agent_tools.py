"""The tools of one host's agents: each agent's effective tool policy, the host
tools it allows, and the pre-run policy gate a selected harness must pass. Everything
here follows from the config (and the sandbox, which shapes `exec`), so it is worked out
once per agent (per harness, for the gate) and reused by every turn."""

from __future__ import annotations

from typing import Any

from clawharness.config.schema import ClawConfig, ToolsConfig
from clawharness.harness.gates import ToolPolicyGate, ToolPolicyLayer, evaluate_tool_policy_gate
from clawharness.harness.selection import SelectionDecision
from clawharness.harness.tool_spec import ToolSpec
from clawharness.names.tool_profiles import TOOL_PROFILES
from clawharness.tools.builtin import core_tool_specs
from clawharness.tools.policy import EffectiveToolPolicy
from clawharness.tools.restriction import ToolRestriction
from clawharness.tools.sandbox.runner import SandboxService

__all__ = ["AgentTools"]


class AgentTools:
    """Per-agent tool policy, host tools and policy gates of one host."""

    def __init__(self, config: ClawConfig, sandbox: SandboxService) -> None:
        self.config = config
        #: where exec runs (agents.*.sandbox); it never shows the store or the config file
        self.sandbox = sandbox
        self._tool_specs: dict[str, tuple[ToolSpec, ...]] = {}
        self._policies: dict[str, EffectiveToolPolicy] = {}
        self._gates: dict[tuple[int, bool, str], tuple[Any, ToolPolicyGate]] = {}

    def _agent_tools(self, agent_id: str) -> ToolsConfig | None:
        entry = self.config.agents.entries.get(agent_id)
        return entry.tools if entry is not None else None

    def tool_policy(self, agent_id: str, workspace_dir: str | None = None) -> EffectiveToolPolicy:
        """The agent's effective tool policy (`tools`, then the agent's own `tools`)."""
        policy = self._policies.get(agent_id)
        if policy is None:
            policy = EffectiveToolPolicy(self.config.tools, agent=self._agent_tools(agent_id),
                                         agent_id=agent_id, workspace_dir=workspace_dir)
            self._policies[agent_id] = policy
        return policy

    def tool_specs(self, agent_id: str) -> tuple[ToolSpec, ...]:
        """The host's own tools the agent's policy allows."""
        specs = self._tool_specs.get(agent_id)
        if specs is None:
            policy = self.tool_policy(agent_id)
            specs = tuple(s for s in core_tool_specs(self.config.tools,
                                                     self.sandbox.for_agent(agent_id))
                          if policy.check(s.name) is None)
            self._tool_specs[agent_id] = specs
        return specs

    def policy_layers(self, agent_id: str) -> list[ToolPolicyLayer]:
        """The policy layers a harness's own tools are weighed against."""
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
