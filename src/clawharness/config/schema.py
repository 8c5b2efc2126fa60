"""The config file's shape: openclaw.json's camelCase keys, as pydantic models.

An existing openclaw-style config loads as it is. Unknown keys are kept (and reported
as warnings by the loader), so a newer file never fails on an older host. Values that
start-up would refuse are refused here, by the validators in `clawharness.config.checks`.

The sections live in private modules, re-exported here: `_models` (model providers),
`_agents` (agents), `_tools` (tool policy), `_gateway`, `_store_cluster` (store, cluster,
session writers), `_mcp`, `_diagnostics`; `_node` is the base they share. The small
sections (plugins, auth, logging, host) and the whole file (`ClawConfig`) are here.
"""

from typing import Any

from pydantic import Field

from clawharness.config._agents import (
    AgentDefaults,
    AgentEntry,
    AgentModelEntry,
    AgentsConfig,
    ModelRefSetting,
    QueueConfig,
    QueueMode,
    SubagentsConfig,
    ThinkingLevel,
    agent_compaction,
    agent_context_pruning,
)
from clawharness.config._diagnostics import DiagnosticsConfig, MetricsConfig, OtelConfig
from clawharness.config._factories import made, no_entries
from clawharness.config._gateway import DEFAULT_HTTP_MAX_BODY_BYTES, GatewayConfig
from clawharness.config._mcp import McpConfig, McpServerConfig, McpToolFilter
from clawharness.config._models import (
    AgentRuntimeRef,
    ModelsConfig,
    ProviderConfig,
    ProviderModel,
    RuntimePolicyConfig,
)
from clawharness.config._node import _empty, _Node
from clawharness.config._store_cluster import (
    ClusterConfig,
    ClusterTlsConfig,
    SessionsConfig,
    StoreConfig,
)
from clawharness.config._tools import ExecToolConfig, ToolsConfig
from clawharness.config.spend import BudgetsConfig

__all__ = [
    "DEFAULT_HTTP_MAX_BODY_BYTES",
    "AgentDefaults",
    "AgentEntry",
    "AgentModelEntry",
    "AgentRuntimeRef",
    "ClawConfig",
    "ClusterConfig",
    "ClusterTlsConfig",
    "DiagnosticsConfig",
    "ExecToolConfig",
    "GatewayConfig",
    "HostConfig",
    "McpConfig",
    "McpServerConfig",
    "McpToolFilter",
    "MetricsConfig",
    "ModelRefSetting",
    "OtelConfig",
    "PluginEntry",
    "PluginsConfig",
    "ProviderConfig",
    "ProviderModel",
    "QueueConfig",
    "QueueMode",
    "RuntimePolicyConfig",
    "SessionsConfig",
    "StoreConfig",
    "SubagentsConfig",
    "ThinkingLevel",
    "ToolsConfig",
    "agent_compaction",
    "agent_context_pruning",
]


class PluginEntry(_Node):
    enabled: bool = True
    config: dict[str, Any] = Field(default_factory=no_entries)
    module: str | None = None


class PluginsConfig(_Node):
    allow: list[str] | None = None
    deny: list[str] = Field(default_factory=_empty)
    entries: dict[str, PluginEntry] = Field(default_factory=no_entries)
    #: extra plugins to load by module path (`package.module` or `package.module:entry`)
    load: list[str] = Field(default_factory=_empty)


class AuthConfig(_Node):
    profiles: dict[str, dict[str, Any]] = Field(default_factory=no_entries)
    order: dict[str, list[str]] = Field(default_factory=no_entries)


class LoggingConfig(_Node):
    #: subsystems with debug records on, e.g. ["agents/harness"]
    debug: list[str] = Field(default_factory=_empty)


class HostConfig(_Node):
    #: raise the garbage collector's thresholds while a host runs (see clawharness._gc)
    tune_gc: bool = Field(default=True, alias="tuneGc")


class ClawConfig(_Node):
    """The whole config file."""

    models: ModelsConfig = Field(default_factory=made(ModelsConfig))
    agents: AgentsConfig = Field(default_factory=made(AgentsConfig))
    plugins: PluginsConfig = Field(default_factory=made(PluginsConfig))
    tools: ToolsConfig = Field(default_factory=made(ToolsConfig))
    gateway: GatewayConfig = Field(default_factory=made(GatewayConfig))
    store: StoreConfig = Field(default_factory=made(StoreConfig))
    cluster: ClusterConfig = Field(default_factory=made(ClusterConfig))
    sessions: SessionsConfig = Field(default_factory=made(SessionsConfig))
    auth: AuthConfig = Field(default_factory=made(AuthConfig))
    logging: LoggingConfig = Field(default_factory=made(LoggingConfig))
    host: HostConfig = Field(default_factory=made(HostConfig))
    mcp: McpConfig = Field(default_factory=made(McpConfig))
    diagnostics: DiagnosticsConfig = Field(default_factory=made(DiagnosticsConfig))
    budgets: BudgetsConfig = Field(default_factory=made(BudgetsConfig))


AgentEntry.model_rebuild()
