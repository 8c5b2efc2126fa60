"""User-turn persistence facts and idempotent re-import of native transcript entries.

A native harness mirrors its user message into the host transcript. Only a canonical
append that actually stored the message (`appended=True`) may announce that the original
input was committed; finding it already in history (an idempotent match) must report
False, or a retried turn would announce the same input twice.

After a resume, a native runtime may hand back entries the host already mirrored.
`reimport_native_entries` appends them with idempotency keys, so every reply is stored
at most once and the caller learns which entries are new.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from clawharness.sessions.transcript import message_text
from clawharness.store import AppendOutcome, NewEntry, TranscriptStore

__all__ = [
    "PersistedUserTurn",
    "UserTurnTranscriptRecorder",
    "reimport_native_entries",
]


@dataclass(frozen=True, slots=True)
class PersistedUserTurn:
    """The committed user message and where it sits in the transcript."""

    message: Any
    anchor: Any


class UserTurnTranscriptRecorder:
    """Records the canonical append of one prepared user turn.

    `on_original_input_committed` fires at most once, and only for a real append.
    """

    def __init__(
        self, *, on_original_input_committed: Callable[[PersistedUserTurn], None] | None = None
    ) -> None:
        self._notify = on_original_input_committed
        self.persisted: PersistedUserTurn | None = None
        self.committed = False

    def mark_runtime_persisted(self, message: Any, anchor: Any, appended: bool) -> bool:
        """Record the append result; True when this call announced the committed input."""
        self.persisted = PersistedUserTurn(message, anchor)
        if appended is not True or self.committed:
            return False
        self.committed = True
        if self._notify is not None:
            self._notify(self.persisted)
        return True

    def mark_outcome(self, message: Any, outcome: AppendOutcome) -> bool:
        """`mark_runtime_persisted` from a store append outcome (anchor = the entry's seq)."""
        return self.mark_runtime_persisted(message, outcome.entry.seq, outcome.appended)


async def reimport_native_entries(
    store: TranscriptStore, session_key: str, session_id: str, entries: Sequence[dict[str, Any]],
    key_for: Callable[[dict[str, Any]], str],
) -> list[AppendOutcome]:
    """Append re-imported native entries idempotently; `appended` is True only for new ones.

    `key_for(entry)` must be stable for the same native entry (e.g. the native item id);
    the stored idempotency key is `native:<key>`. An entry repeated within `entries` is
    appended once; the result has one outcome per distinct key, in first-seen order.
    """
    seen: set[str] = set()
    new_entries: list[NewEntry] = []
    for entry in entries:
        key = f"native:{key_for(entry)}"
        if key in seen:
            continue
        seen.add(key)
        new_entries.append(NewEntry(
            role=str(entry.get("role", "unknown")), content=dict(entry),
            metadata={"source": "native-reimport"}, idempotency_key=key,
            text=message_text(entry) or None))
    if not new_entries:
        return []
    return await store.append_entries(session_key, session_id, new_entries)
