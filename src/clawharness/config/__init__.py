"""Config: the openclaw.json shape (JSON5, camelCase keys), loading it, and editing it.

`loader` loads (`load_config`, `parse_config`, `LoadedConfig`, `state_dir`); `schema` is
the shape (`ClawConfig`); `checks` are the value checks its validators run, `advice` the
warnings about a file that validates, `legacy` the legacy forms both report; `editing`
and `writer` change the file (`config set|unset`). Doctor's checks and repairs are an
application of config, in `clawharness.doctor`. The problems every config message is
made of, and the key path syntax, are `clawharness.problems`, beside the error tree.

"""

from __future__ import annotations

from typing import TYPE_CHECKING

from clawharness._faces import lazy_face

if TYPE_CHECKING:
    from clawharness.config.checks import bind_host, is_loopback_host
    from clawharness.config.context import CompactionConfig, ContextPruningConfig
    from clawharness.config.editing import (
        ConfigEditRefused,
        describe_value_for_cli,
        edit_config,
        parse_value_argument,
        read_key,
    )
    from clawharness.config.held_secrets import held_secret_values
    from clawharness.config.keypaths import MISSING
    from clawharness.config.legacy import CODEX_PLUGIN_ID, codex_plugin_blocker
    from clawharness.config.loader import (
        CONFIG_FILENAMES,
        LoadedConfig,
        load_config,
        parse_config,
        resolve_config_path,
        state_dir,
        validate_config,
    )
    from clawharness.config.sandbox import SandboxConfig
    from clawharness.config.schema import (
        DEFAULT_HTTP_MAX_BODY_BYTES,
        AgentModelEntry,
        ClawConfig,
        ClusterConfig,
        DiagnosticsConfig,
        McpConfig,
        ModelRefSetting,
        PluginsConfig,
        ProviderConfig,
        ProviderModel,
        QueueMode,
        ThinkingLevel,
        ToolsConfig,
        agent_compaction,
        agent_context_pruning,
    )
    from clawharness.config.source import read_config_file
    from clawharness.config.spend import (
        BudgetLimits,
        BudgetsConfig,
        BudgetWindows,
        LoopDetectionConfig,
        ModelCost,
    )
    from clawharness.config.writer import WriteResult, write_config

__all__ = [
    "CODEX_PLUGIN_ID",
    "CONFIG_FILENAMES",
    "DEFAULT_HTTP_MAX_BODY_BYTES",
    "MISSING",
    "AgentModelEntry",
    "BudgetLimits",
    "BudgetWindows",
    "BudgetsConfig",
    "ClawConfig",
    "ClusterConfig",
    "CompactionConfig",
    "ConfigEditRefused",
    "ContextPruningConfig",
    "DiagnosticsConfig",
    "LoadedConfig",
    "LoopDetectionConfig",
    "McpConfig",
    "ModelCost",
    "ModelRefSetting",
    "PluginsConfig",
    "ProviderConfig",
    "ProviderModel",
    "QueueMode",
    "SandboxConfig",
    "ThinkingLevel",
    "ToolsConfig",
    "WriteResult",
    "agent_compaction",
    "agent_context_pruning",
    "bind_host",
    "codex_plugin_blocker",
    "describe_value_for_cli",
    "edit_config",
    "held_secret_values",
    "is_loopback_host",
    "load_config",
    "parse_config",
    "parse_value_argument",
    "read_config_file",
    "read_key",
    "resolve_config_path",
    "state_dir",
    "validate_config",
    "write_config",
]

__getattr__, __dir__ = lazy_face(__name__, {
    "AgentModelEntry": "clawharness.config.schema",
    "BudgetLimits": "clawharness.config.spend",
    "BudgetWindows": "clawharness.config.spend",
    "BudgetsConfig": "clawharness.config.spend",
    "LoopDetectionConfig": "clawharness.config.spend",
    "ModelCost": "clawharness.config.spend",
    "CODEX_PLUGIN_ID": "clawharness.config.legacy",
    "CONFIG_FILENAMES": "clawharness.config.loader",
    "ClawConfig": "clawharness.config.schema",
    "ClusterConfig": "clawharness.config.schema",
    "ConfigEditRefused": "clawharness.config.editing",
    "DEFAULT_HTTP_MAX_BODY_BYTES": "clawharness.config.schema",
    "DiagnosticsConfig": "clawharness.config.schema",
    "LoadedConfig": "clawharness.config.loader",
    "MISSING": "clawharness.config.keypaths",
    "McpConfig": "clawharness.config.schema",
    "ModelRefSetting": "clawharness.config.schema",
    "PluginsConfig": "clawharness.config.schema",
    "ProviderConfig": "clawharness.config.schema",
    "ProviderModel": "clawharness.config.schema",
    "QueueMode": "clawharness.config.schema",
    "ThinkingLevel": "clawharness.config.schema",
    "SandboxConfig": "clawharness.config.sandbox",
    "CompactionConfig": "clawharness.config.context",
    "ContextPruningConfig": "clawharness.config.context",
    "ToolsConfig": "clawharness.config.schema",
    "WriteResult": "clawharness.config.writer",
    "agent_compaction": "clawharness.config.schema",
    "agent_context_pruning": "clawharness.config.schema",
    "bind_host": "clawharness.config.checks",
    "codex_plugin_blocker": "clawharness.config.legacy",
    "describe_value_for_cli": "clawharness.config.editing",
    "edit_config": "clawharness.config.editing",
    "held_secret_values": "clawharness.config.held_secrets",
    "is_loopback_host": "clawharness.config.checks",
    "load_config": "clawharness.config.loader",
    "parse_config": "clawharness.config.loader",
    "parse_value_argument": "clawharness.config.editing",
    "read_config_file": "clawharness.config.source",
    "read_key": "clawharness.config.editing",
    "resolve_config_path": "clawharness.config.loader",
    "state_dir": "clawharness.config.loader",
    "validate_config": "clawharness.config.loader",
    "write_config": "clawharness.config.writer",
})
