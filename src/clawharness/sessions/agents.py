"""Which agents exist: the one rule every front and the turn path share.

An agent exists when the config defines it under `agents.entries`, and the default
agent always exists (the entry marked `default: true`, else `main`), so a config with no
`agents.entries` at all has exactly one agent, `main`, as in the original (its
`listAgentIds` answers `["main"]` for an empty agent list). A session key naming any
other agent (`agent:ghost:x`) is refused: such a turn would run under `agents.defaults`
alone and so escape every rule written for a real agent (`agents.entries.main.tools.deny`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from clawharness.errors import UnknownAgentError

if TYPE_CHECKING:
    from clawharness.config.schema import ClawConfig

__all__ = ["DEFAULT_AGENT_ID", "configured_default_agent", "known_agent_ids",
           "require_known_agent"]

#: the agent that exists when the config names none as default
DEFAULT_AGENT_ID = "main"


def configured_default_agent(config: ClawConfig) -> str:
    """The entry marked `default: true`, else `main` (`Host.default_agent_id`)."""
    for agent_id, entry in config.agents.entries.items():
        if entry.default:
            return agent_id
    return DEFAULT_AGENT_ID


def known_agent_ids(config: ClawConfig) -> tuple[str, ...]:
    """The default agent first, then every configured entry, in config order."""
    default = configured_default_agent(config)
    return (default, *(a for a in config.agents.entries if a != default))


def require_known_agent(config: ClawConfig, agent_id: str, *,
                        session_key: str | None = None) -> None:
    """Raise `UnknownAgentError` (code `unknown_agent`) unless `agent_id` exists."""
    known = known_agent_ids(config)
    if agent_id in known:
        return
    where = f" (from the session key {session_key!r})" if session_key else ""
    error = UnknownAgentError(
        f"unknown agent id {agent_id!r}{where}: the config defines "
        f"{', '.join(repr(a) for a in known)}")
    error.hint = (f"use a session key of a configured agent (agent:{known[0]}:<name>), or "
                  f"define the agent under agents.entries.{agent_id}")
    raise error
