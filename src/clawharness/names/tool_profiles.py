"""Built-in tool profiles (`tools.profile`): the allow list each one starts from; and the
core tools a config key must turn on.

Kept apart from the policy engine so the config schema can check a profile name without
importing the engine (which imports the schema).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

__all__ = ["OFF_BY_DEFAULT", "TOOL_PROFILES", "absent_tool_reason"]

_SESSIONS_CORE: Final = ("sessions_list", "sessions_history", "sessions_send", "session_status")

#: built-in profiles (`tools.profile`); `full` has no allow list, so it allows everything
TOOL_PROFILES: Final[Mapping[str, tuple[str, ...] | None]] = {
    "minimal": ("session_status",),
    "coding": (
        "group:fs",
        "exec",
        "process",
        "code_execution",
        "web_search",
        "web_fetch",
        "group:memory",
        *_SESSIONS_CORE,
        "sessions_spawn",
        "sessions_yield",
        "subagents",
        "automations",
        "image",
        "image_generate",
        "bundle-mcp",
    ),
    "messaging": ("group:messaging", *_SESSIONS_CORE, "bundle-mcp"),
    "full": None,
}

#: core tools offered only when a config key turns them on: tool -> that key
OFF_BY_DEFAULT = {"web_fetch": "tools.web.fetch.enabled"}


def absent_tool_reason(tool_name: str) -> str:
    """Why a tool the policy does not refuse is still not offered, and what to do."""
    key = OFF_BY_DEFAULT.get(tool_name)
    if key is not None:
        return f'tool "{tool_name}" is off by default: set {key} to true to offer it'
    return f'no tool "{tool_name}" is offered in this session'
