"""Accepted child-session spawns, read from loose `sessions_spawn` tool results.

A harness records every accepted spawn in its attempt result (`acceptedSessionSpawns`).
`expects_completion_message` matters to core: when the requester yields, the child's
terminal completion is delivered on the requester's behalf only if the child owns it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from clawharness._json import JsonValue
from clawharness._text import trim

__all__ = [
    "AcceptedSessionSpawn",
    "has_accepted_session_spawn",
    "normalize_accepted_session_spawn_result",
]


@dataclass(frozen=True, slots=True)
class AcceptedSessionSpawn:
    """One child session that a spawn tool call started."""

    run_id: str
    child_session_key: str
    #: True only when this child owns a terminal completion for its requester
    expects_completion_message: bool = False


def _trimmed(value: JsonValue) -> str | None:
    return (trim(value) or None) if isinstance(value, str) else None


def normalize_accepted_session_spawn_result(result: JsonValue) -> AcceptedSessionSpawn | None:
    """The spawn a tool result accepted, or None for an unaccepted or incomplete receipt.

    Reads `details.status == "accepted"` (exactly), with trimmed non-empty `runId` and
    `childSessionKey`; a completion intent other than `true` counts as False.
    """
    details = result.get("details") if isinstance(result, dict) else None
    if not isinstance(details, dict) or details.get("status") != "accepted":
        return None
    run_id = _trimmed(details.get("runId"))
    child_session_key = _trimmed(details.get("childSessionKey"))
    if run_id is None or child_session_key is None:
        return None
    return AcceptedSessionSpawn(
        run_id=run_id,
        child_session_key=child_session_key,
        expects_completion_message=details.get("expectsCompletionMessage") is True,
    )


def has_accepted_session_spawn(spawns: Iterable[AcceptedSessionSpawn] | None) -> bool:
    """True when a collection holds at least one accepted child spawn."""
    return any(True for _ in spawns or ())
