"""Tool groups (`group:fs`, `group:web`, …) and their expansion for allow/deny policy.

Policy lists name tools, aliases (`bash` is `exec`, `apply-patch` is `apply_patch`,
`cron` is `automations`) or groups. `expand_tool_groups` turns such a list into concrete
tool ids: lower-cased, aliases resolved, groups replaced by their members, duplicates
dropped in first-seen order.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from types import MappingProxyType
from typing import Final

from clawharness._text import trim

__all__ = ["TOOL_GROUPS", "TOOL_NAME_ALIASES", "expand_tool_groups", "normalize_tool_name"]

_SESSIONS: Final = (
    "sessions",
    "sessions_list",
    "sessions_history",
    "sessions_search",
    "conversations_list",
    "conversations_send",
    "conversations_turn",
    "sessions_send",
    "sessions_spawn",
    "github_identity_status",
    "github_publish",
    "agents_wait",
    "sessions_yield",
    "subagents",
    "session_status",
    "suggest_task",
    "dismiss_task",
)
_AGENTS: Final = (
    "agents_list",
    "get_goal",
    "create_goal",
    "update_goal",
    "progress_card",
    "ask_user",
    "skill_workshop",
)
_MEDIA: Final = ("view_image", "image_generate", "music_generate", "video_generate", "tts", "pdf")
_AUTOMATION: Final = ("heartbeat_respond", "automations", "gateway", "plugins", "openclaw")

#: group id -> member tool ids, in the order the original lists them
TOOL_GROUPS: Final[Mapping[str, tuple[str, ...]]] = MappingProxyType(
    {
        "group:openclaw": (
            "code_execution",
            "secrets",
            "web_search",
            "web_fetch",
            "x_search",
            "memory_search",
            "memory_get",
            *_SESSIONS,
            "browser",
            "screen",
            "theme",
            "dashboard",
            "terminal",
            "portal",
            "show_widget",
            "message",
            *_AUTOMATION,
            "nodes",
            "computer",
            "mobile_ui",
            *_AGENTS,
            *_MEDIA,
        ),
        "group:fs": ("ls", "read", "write", "edit", "apply_patch"),
        "group:runtime": ("exec", "process", "code_execution", "secrets"),
        "group:web": ("web_search", "web_fetch", "x_search"),
        "group:memory": ("memory_search", "memory_get"),
        "group:sessions": _SESSIONS,
        "group:ui": (
            "browser",
            "screen",
            "theme",
            "dashboard",
            "terminal",
            "portal",
            "canvas",
            "show_widget",
        ),
        "group:messaging": ("message",),
        "group:automation": _AUTOMATION,
        "group:nodes": ("nodes", "computer", "mobile_ui"),
        "group:agents": _AGENTS,
        "group:media": _MEDIA,
    }
)

#: legacy or alternate spellings -> canonical policy id
TOOL_NAME_ALIASES: Final[Mapping[str, str]] = MappingProxyType(
    {"bash": "exec", "apply-patch": "apply_patch", "cron": "automations"}
)


def normalize_tool_name(name: str) -> str:
    """Policy id for a tool name: trimmed, lower-cased, alias resolved.

    A value that is not a string (a plugin's malformed matcher, say) names no tool: "".
    """
    normalized = trim(name).lower() if isinstance(name, str) else ""
    return TOOL_NAME_ALIASES.get(normalized, normalized)


def expand_tool_groups(names: Iterable[str] | None) -> list[str]:
    """Concrete tool ids for a policy list; unknown names pass through normalized."""
    if not names:
        return []
    expanded: list[str] = []
    seen: set[str] = set()
    for raw in names:
        value = normalize_tool_name(raw)
        if not value:
            continue
        for tool in TOOL_GROUPS.get(value, (value,)):
            if tool not in seen:
                seen.add(tool)
                expanded.append(tool)
    return expanded
