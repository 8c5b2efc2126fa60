"""An ACP session's modes: how much the agent may do unasked, on top of its config.

A mode only ever narrows the agent's configured tool policy (profile, allow/deny, exec
approvals): a client can make the agent ask more or do less, never more than the config
lets it.

    default     as configured
    ask         as configured, and every exec, write, edit and apply_patch call asks
                first (session/request_permission), as `tools.exec.ask: "always"` does
                for exec
    read-only   only `read` and `ls` are offered: no changes, no commands
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from acp.schema import SessionMode, SessionModeState

from clawharness.tools import ToolRestriction

__all__ = ["DEFAULT_MODE", "MODES", "SessionModeSpec", "mode_state", "restriction_for"]


@dataclass(frozen=True, slots=True)
class SessionModeSpec:
    id: str
    name: str
    description: str
    #: None: the agent's policy as configured
    restriction: ToolRestriction | None


def _label(mode_id: str) -> str:
    return f'the ACP session mode "{mode_id}"'


MODES: Final[tuple[SessionModeSpec, ...]] = (
    SessionModeSpec("default", "Default",
                    "The agent's tools and approvals as configured.", None),
    SessionModeSpec("ask", "Ask first",
                    "As configured, and every command and file change asks first.",
                    ToolRestriction(_label("ask"),
                                    ask=("exec", "write", "edit", "apply_patch"))),
    SessionModeSpec("read-only", "Read only",
                    "Only reading files and listing directories: no changes, no commands.",
                    ToolRestriction(_label("read-only"), allow=("read", "ls"))),
)
DEFAULT_MODE: Final = "default"
_BY_ID: Final = {m.id: m for m in MODES}


def restriction_for(mode_id: str) -> ToolRestriction | None:
    """The tool restriction of mode `mode_id` (`KeyError` for an unknown one)."""
    return _BY_ID[mode_id].restriction


def mode_state(current: str) -> SessionModeState:
    """The modes as ACP announces them, `current` selected."""
    return SessionModeState(
        current_mode_id=current,
        available_modes=[SessionMode(id=m.id, name=m.name, description=m.description)
                         for m in MODES])


def known_mode(mode_id: object) -> str | None:
    """`mode_id` when it names a mode, else None."""
    return mode_id if isinstance(mode_id, str) and mode_id in _BY_ID else None
