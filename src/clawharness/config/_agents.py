"""`agents`: the defaults and each agent (model and fallbacks, per-model settings,
workspace, queue mode, thinking, sub-agent limits, compaction and pruning), and an
agent's compaction and pruning over the defaults'."""

from typing import Any, Literal

from pydantic import Field, field_validator

from clawharness.config._factories import made, no_entries
from clawharness.config._models import AgentRuntimeRef
from clawharness.config._node import PositiveInt, PositiveSeconds, _empty, _Node
from clawharness.config._tools import ToolsConfig
from clawharness.config.context import CompactionConfig, ContextPruningConfig, overlay
from clawharness.config.sandbox import SandboxConfig

__all__ = [
    "AgentDefaults",
    "AgentEntry",
    "AgentModelEntry",
    "AgentsConfig",
    "ModelRefSetting",
    "QueueConfig",
    "QueueMode",
    "SubagentsConfig",
    "ThinkingLevel",
    "agent_compaction",
    "agent_context_pruning",
]


class ModelRefSetting(_Node):
    """`model: {primary, fallbacks}` (a bare string is accepted too)."""

    primary: str | None = None
    fallbacks: list[str] = Field(default_factory=_empty)


class AgentModelEntry(_Node):
    """`agents.*.models[ref]`: per-model settings for an agent."""

    agent_runtime: AgentRuntimeRef | None = Field(default=None, alias="agentRuntime")
    alias: str | None = None
    params: dict[str, Any] | None = None


def _coerce_model_setting(value: Any) -> Any:
    if isinstance(value, str):
        return {"primary": value}
    return value


#: what happens to a message for a session whose turn is running (OpenClaw's
#: `queue.mode`; docs/steering.md): `steer` it into the running turn at its next tool
#: boundary (the default), run it as the next turn (`followup`), make the queued
#: messages one next turn (`collect`), or abort the running turn and run it (`interrupt`)
QueueMode = Literal["steer", "followup", "collect", "interrupt"]


class QueueConfig(_Node):
    """`agents.defaults.queue` / `agents.entries.<id>.queue`."""

    mode: QueueMode | None = None


#: how hard a reasoning model thinks (OpenClaw's levels; `clawharness.models.thinking`
#: maps them per provider and model, docs/thinking.md)
ThinkingLevel = Literal["off", "minimal", "low", "medium", "high", "xhigh"]


class SubagentsConfig(_Node):
    """`agents.defaults.subagents`: the limits on child sessions `sessions_spawn` starts
    (OpenClaw's names and defaults; docs/portable-sessions.md, "Sub-agents")."""

    #: how deep children may nest: a session at this depth cannot spawn (1: only
    #: top-level sessions spawn; the original allows 1..5, default 5)
    max_spawn_depth: int = Field(default=5, ge=1, le=5, alias="maxSpawnDepth")
    #: active (queued or running) children of one session at once
    max_children_per_agent: int = Field(default=5, ge=1, le=20, alias="maxChildrenPerAgent")
    #: child turns running at once in one host; the rest wait, queued
    max_concurrent: PositiveInt = Field(default=8, alias="maxConcurrent")
    #: a child's turn timeout when the spawn names none (0: none)
    run_timeout_seconds: int = Field(default=0, ge=0, alias="runTimeoutSeconds")
    #: other agents a session may spawn children of (`*`: any); its own always
    allow_agents: list[str] = Field(default_factory=_empty, alias="allowAgents")
    #: the model children run on when the spawn names none (default: the parent's)
    model: str | None = None


class AgentDefaults(_Node):
    model: ModelRefSetting | None = None
    models: dict[str, AgentModelEntry] = Field(default_factory=no_entries)
    workspace: str | None = None
    #: legacy whole-agent runtime: ignored by selection, reported by doctor
    agent_runtime: AgentRuntimeRef | None = Field(default=None, alias="agentRuntime")
    max_steps: PositiveInt | None = Field(default=None, alias="maxSteps")
    timeout_seconds: PositiveSeconds | None = Field(default=None, alias="timeoutSeconds")
    system_prompt: str | None = Field(default=None, alias="systemPrompt")
    sandbox: SandboxConfig | None = None
    queue: QueueConfig | None = None
    #: summarising the oldest history before the prompt overflows (docs/compaction.md)
    compaction: CompactionConfig = Field(default_factory=made(CompactionConfig))
    #: shortening old tool results in the prompt, never in the store
    context_pruning: ContextPruningConfig = Field(default_factory=made(ContextPruningConfig),
                                                  alias="contextPruning")
    thinking_default: ThinkingLevel | None = Field(default=None, alias="thinkingDefault")
    subagents: SubagentsConfig = Field(default_factory=made(SubagentsConfig))

    _model = field_validator("model", mode="before")(_coerce_model_setting)


class AgentEntry(_Node):
    default: bool = False
    name: str | None = None
    model: ModelRefSetting | None = None
    models: dict[str, AgentModelEntry] = Field(default_factory=no_entries)
    workspace: str | None = None
    agent_runtime: AgentRuntimeRef | None = Field(default=None, alias="agentRuntime")
    tools: ToolsConfig | None = None
    system_prompt: str | None = Field(default=None, alias="systemPrompt")
    sandbox: SandboxConfig | None = None
    queue: QueueConfig | None = None
    #: this agent's compaction and pruning keys, over `agents.defaults`' key by key
    #: (`clawharness.config.context.agent_compaction`; docs/compaction.md)
    compaction: CompactionConfig | None = None
    context_pruning: ContextPruningConfig | None = Field(default=None, alias="contextPruning")
    thinking_default: ThinkingLevel | None = Field(default=None, alias="thinkingDefault")

    _model = field_validator("model", mode="before")(_coerce_model_setting)


class AgentsConfig(_Node):
    defaults: AgentDefaults = Field(default_factory=made(AgentDefaults))
    entries: dict[str, AgentEntry] = Field(default_factory=no_entries)


def agent_compaction(agents: AgentsConfig, agent_id: str) -> CompactionConfig:
    """`agents.entries.<agent_id>.compaction` over `agents.defaults.compaction`."""
    entry = agents.entries.get(agent_id)
    base = agents.defaults.compaction
    return base if entry is None else overlay(base, entry.compaction)


def agent_context_pruning(agents: AgentsConfig, agent_id: str) -> ContextPruningConfig:
    """`agents.entries.<agent_id>.contextPruning` over `agents.defaults.contextPruning`."""
    entry = agents.entries.get(agent_id)
    base = agents.defaults.context_pruning
    return base if entry is None else overlay(base, entry.context_pruning)
