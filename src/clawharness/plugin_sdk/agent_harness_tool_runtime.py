"""`clawharness.plugin_sdk.agent_harness_tool_runtime`: tool-surface helpers for harnesses.

Accepted session spawns, MCP catalog naming, tool groups and the compact tool-surface
runtime. Everything loads lazily from the core modules named in `LAZY_EXPORTS`.
"""

# Names in __all__ that LAZY_EXPORTS serves are defined by __getattr__, not statically.
# ruff: noqa: F822

from __future__ import annotations

from clawharness.plugin_sdk._lazy import LazyTable, install_lazy_exports
from clawharness.tools.workspace import resolve_workspace_path

#: public name -> (providing module, attribute)
LAZY_EXPORTS: LazyTable = {
    "AcceptedSessionSpawn": ("clawharness.attempt.spawns", "AcceptedSessionSpawn"),
    "normalize_accepted_session_spawn_result": (
        "clawharness.attempt.spawns", "normalize_accepted_session_spawn_result"),
    "assign_mcp_catalog_safe_server_names": (
        "clawharness.tools.mcp_names", "assign_mcp_catalog_safe_server_names"),
    "TOOL_GROUPS": ("clawharness.tools.groups", "TOOL_GROUPS"),
    "expand_tool_groups": ("clawharness.tools.groups", "expand_tool_groups"),
    "normalize_tool_name": ("clawharness.tools.groups", "normalize_tool_name"),
    "create_agent_harness_tool_surface_runtime": (
        "clawharness.tools.surface", "create_agent_harness_tool_surface_runtime"),
}

__all__ = [
    "TOOL_GROUPS",
    "AcceptedSessionSpawn",
    "assign_mcp_catalog_safe_server_names",
    "create_agent_harness_tool_surface_runtime",
    "expand_tool_groups",
    "normalize_accepted_session_spawn_result",
    "normalize_tool_name",
    "resolve_workspace_path",
]

_lazy_getattr, _lazy_dir = install_lazy_exports(__name__, LAZY_EXPORTS)


def __getattr__(name: str) -> object:
    return _lazy_getattr(name)


def __dir__() -> list[str]:
    return _lazy_dir()
