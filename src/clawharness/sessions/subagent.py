"""Recognize sub-agent session keys (`subagent:…` or `agent:<id>:subagent:…`)."""

from __future__ import annotations

from clawharness._text import trim

__all__ = ["is_subagent_session_key", "parse_agent_session_key"]


def parse_agent_session_key(session_key: str) -> tuple[str, str] | None:
    """Split `agent:<agentId>:<rest>` into (agentId, rest); None for other shapes."""
    if session_key[:6].lower() != "agent:":
        return None
    end = session_key.find(":", 6)
    if end == -1:
        return None
    agent_id = trim(session_key[6:end])
    rest = session_key[end + 1 :]
    if not agent_id or not rest or rest.startswith(":"):
        return None
    return agent_id, rest


def is_subagent_session_key(session_key: str) -> bool:
    """True for keys naming a sub-agent session, case-insensitively."""
    raw = trim(session_key)
    if not raw:
        return False
    if raw.lower().startswith("subagent:"):
        return True
    parsed = parse_agent_session_key(raw.lower())
    if parsed is None:
        return False
    return trim(parsed[1]).startswith("subagent:")
