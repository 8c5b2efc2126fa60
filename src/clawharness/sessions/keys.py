"""Session keys: `agent:<agentId>:<rest>`.

`rest` names the conversation inside the agent (`main`, `telegram:group:42`,
`subagent:<uuid>` ...). A bare name is shorthand for `agent:<default agent>:<name>`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from clawharness.errors import InvalidSessionKeyError

__all__ = ["SessionKey", "normalize_session_key", "parse_session_key"]

_AGENT_ID = re.compile(r"^[a-z0-9][a-z0-9_-]{0,63}$")
_REST = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._:@+/=-]{0,255}$")
_BARE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._@+=-]{0,255}$")


@dataclass(frozen=True, slots=True)
class SessionKey:
    agent_id: str
    rest: str

    def __str__(self) -> str:
        return f"agent:{self.agent_id}:{self.rest}"


#: keys parsed lately (a turn parses its key three times); forgotten all at once past
#: `_MAX_PARSED`
_PARSED: dict[str, SessionKey] = {}
_MAX_PARSED = 4096


def parse_session_key(text: str) -> SessionKey:
    """Parse a full `agent:<agentId>:<rest>` key, or raise InvalidSessionKeyError."""
    if type(text) is str:
        known = _PARSED.get(text)
        if known is not None:
            return known
    key = _parse_session_key(text)
    if type(text) is str:
        if len(_PARSED) >= _MAX_PARSED:
            _PARSED.clear()
        _PARSED[text] = key
    return key


def _parse_session_key(text: str) -> SessionKey:
    if not isinstance(text, str):
        raise InvalidSessionKeyError(f"session key must be a string, got {type(text).__name__}")
    parts = text.split(":", 2)
    if len(parts) != 3 or parts[0] != "agent":
        raise InvalidSessionKeyError(
            f"invalid session key {text!r}: expected agent:<agentId>:<name>, e.g. agent:main:main"
        )
    _, agent_id, rest = parts
    if not _AGENT_ID.match(agent_id):
        raise InvalidSessionKeyError(
            f"invalid session key {text!r}: agent id {agent_id!r} must be lowercase letters, "
            "digits, '-' or '_' (at most 64)"
        )
    if not _REST.match(rest) or rest.endswith(":"):
        raise InvalidSessionKeyError(
            f"invalid session key {text!r}: name {rest!r} must start with a letter or digit and "
            "hold no spaces or control characters (at most 256)"
        )
    return SessionKey(agent_id, rest)


def normalize_session_key(text: str, *, default_agent: str = "main") -> str:
    """A full key from a full key or a bare name (`work` -> `agent:main:work`)."""
    if not isinstance(text, str) or not text.strip():
        raise InvalidSessionKeyError("session key must be a non-empty string")
    text = text.strip()
    if text.startswith("agent:"):
        return str(parse_session_key(text))
    if not _BARE.match(text):
        raise InvalidSessionKeyError(
            f"invalid session name {text!r}: use letters, digits and . _ @ + = - "
            "or a full key agent:<agentId>:<name>"
        )
    return str(parse_session_key(f"agent:{default_agent}:{text}"))
