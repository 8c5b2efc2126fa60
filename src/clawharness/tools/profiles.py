"""Built-in tool profiles (`tools.profile`): the allow list each one starts from.

Kept apart from the policy engine so the config schema can check a profile name without
importing the engine (which imports the schema).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

__all__ = ["TOOL_PROFILES"]

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
