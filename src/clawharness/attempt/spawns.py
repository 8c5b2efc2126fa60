"""Accepted child-session spawns, read from loose `sessions_spawn` tool results.

A harness records every accepted spawn in its attempt result (`acceptedSessionSpawns`).
`expects_completion_message` matters to core: when the requester yields, the child's
terminal completion is delivered on the requester's behalf only if the child owns it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from clawharness.delivery._coerce import as_record, field_of, normalize_optional_string

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

    def to_js(self) -> dict[str, Any]:
        """The original's object shape."""
        return {
            "runId": self.run_id,
            "childSessionKey": self.child_session_key,
            "expectsCompletionMessage": self.expects_completion_message,
        }


def normalize_accepted_session_spawn_result(result: Any) -> AcceptedSessionSpawn | None:
    """The spawn a tool result accepted, or None for an unaccepted or incomplete receipt.

    Reads `details.status == "accepted"` (exactly), with trimmed non-empty `runId` and
    `childSessionKey`; a missing completion intent counts as False.
    """
    details = as_record(field_of(result, "details"))
    if details is None or details.get("status") != "accepted":
        return None
    run_id = normalize_optional_string(details.get("runId"))
    child_session_key = normalize_optional_string(details.get("childSessionKey"))
    if not run_id or not child_session_key:
        return None
    return AcceptedSessionSpawn(
        run_id=run_id,
        child_session_key=child_session_key,
        expects_completion_message=details.get("expectsCompletionMessage") is True,
    )


def has_accepted_session_spawn(spawns: Iterable[AcceptedSessionSpawn] | None) -> bool:
    """True when a collection holds at least one accepted child spawn."""
    return any(True for _ in spawns or ())
