"""Sub-agents: child sessions a session spawns with the `sessions_spawn` tool, run in the
background on any runtime, registered in the store, announced to their parent when they
end (docs/portable-sessions.md, "Sub-agents").

    request.py  the tool's arguments (SpawnRequest), its results and the announcement
    manager.py  SubagentManager: spawn, run, announce, kill, list children; SpawnHost,
                what it needs of `Host` (each host has one: `Host.subagents`)
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from clawharness._faces import lazy_face

if TYPE_CHECKING:
    from clawharness.subagents.manager import (
        BEAT_SECONDS,
        LOST_AFTER_SECONDS,
        SPAWN_TOOL,
        SpawnHost,
        SubagentManager,
    )
    from clawharness.subagents.request import (
        SpawnRequest,
        announcement,
        parse_spawn_request,
        settled_through,
        spawn_result,
    )

__all__ = [
    "BEAT_SECONDS",
    "LOST_AFTER_SECONDS",
    "SPAWN_TOOL",
    "SpawnHost",
    "SpawnRequest",
    "SubagentManager",
    "announcement",
    "parse_spawn_request",
    "settled_through",
    "spawn_result",
]

__getattr__, __dir__ = lazy_face(__name__, {
    "BEAT_SECONDS": "clawharness.subagents.manager",
    "LOST_AFTER_SECONDS": "clawharness.subagents.manager",
    "SPAWN_TOOL": "clawharness.subagents.manager",
    "SpawnHost": "clawharness.subagents.manager",
    "SubagentManager": "clawharness.subagents.manager",
    "SpawnRequest": "clawharness.subagents.request",
    "announcement": "clawharness.subagents.request",
    "parse_spawn_request": "clawharness.subagents.request",
    "settled_through": "clawharness.subagents.request",
    "spawn_result": "clawharness.subagents.request",
})
