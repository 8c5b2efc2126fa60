"""The deletion journal: what makes a binding deletion survive a crash consistently.

A deletion's `commit()` removes the binding row synchronously, in its own store write,
before the host deletes the session row in a later write. A process killed between the
two would otherwise leave a session without its binding. So `commit()` first records a
journal row (in `<namespace>.pending-deletions`, same key) holding the deleted value, the
session key and physical session id it belonged to, and a lease (the deleting owner's
token, renewed by its heartbeat). The journal row goes away when the host transaction
settles: on success after `run` returns, on failure in `rollback()`.

`recover()` settles journal rows whose lease expired (their owner died):

- deletion: if the session row still exists with the same physical id, the host never
  deleted it, so the binding is put back (only if the key is still free); otherwise the
  session is gone and so stays the binding.
- context reset: the transcript cut cannot be observed afterwards, so the binding stays
  invalidated; the next turn starts a fresh native thread, which is always safe.

Either way the journal row is then removed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from clawharness.sessions.bindings.namespace import (
    DictRecordCodec,
    Lease,
    PluginStateNamespace,
)
from clawharness.store import Store

__all__ = [
    "JOURNAL_SUFFIX",
    "DeletionJournal",
    "JournalEntry",
    "RecoveredDeletion",
]

#: the journal of namespace N lives in namespace N + this suffix
JOURNAL_SUFFIX = ".pending-deletions"

RemovalKind = Literal["deletion", "context-reset"]


@dataclass(frozen=True, slots=True)
class JournalEntry:
    """One pending removal: the deleted value and the host session it belonged to."""

    kind: RemovalKind
    snapshot: Any
    session_key: str | None
    session_id: str | None

    def to_json(self) -> dict[str, Any]:
        """The journal row's body."""
        return {"kind": self.kind, "snapshot": self.snapshot, "sessionKey": self.session_key,
                "sessionId": self.session_id}

    @classmethod
    def from_json(cls, body: dict[str, Any]) -> JournalEntry:
        """Read a journal row's body."""
        kind = body.get("kind")
        if kind not in ("deletion", "context-reset"):
            raise ValueError(f"unknown journal kind {kind!r}")
        return cls(kind=kind, snapshot=body.get("snapshot"),
                   session_key=body.get("sessionKey"), session_id=body.get("sessionId"))


@dataclass(frozen=True, slots=True)
class RecoveredDeletion:
    """What `recover()` did with one journal row."""

    key: str
    kind: RemovalKind
    outcome: Literal["restored", "kept-deleted", "key-taken", "owner-alive"]


class DeletionJournal:
    """Journal rows of one binding namespace (sync writes for `commit()`)."""

    def __init__(self, store: Store, namespace: str, *, max_value_bytes: int) -> None:
        self.store = store
        # The snapshot is one binding value plus a little: allow room for both.
        self.rows: PluginStateNamespace[dict[str, Any]] = PluginStateNamespace(
            store, namespace + JOURNAL_SUFFIX, DictRecordCodec(),
            max_value_bytes=max_value_bytes + 4096)

    def record_sync(self, key: str, entry: JournalEntry, lease: Lease, now: float) -> bool:
        """Write the journal row before the binding row goes; False if a live one exists."""
        body = entry.to_json()
        if self.rows.register_if_absent_sync(key, body, lease=lease) is not None:
            return True
        stale = self.rows.get_sync(key)
        if stale is None:
            return self.rows.register_if_absent_sync(key, body, lease=lease) is not None
        if stale.lease is not None and stale.lease.live(now) \
                and stale.lease.token != lease.token:
            return False
        # A journal left by a dead owner (not yet recovered) is superseded by ours.
        return self.rows.update_if_current_sync(key, stale.generation, body,
                                                lease=lease) is not None

    def discard_sync(self, key: str, token: str) -> None:
        """Remove our journal row (by token), synchronously."""
        row = self.rows.get_sync(key)
        if row is not None and row.lease is not None and row.lease.token == token:
            self.rows.delete_if_sync(key, row.generation)

    async def discard(self, key: str, token: str) -> None:
        """Remove our journal row (by token): the host transaction has settled."""
        row = await self.rows.get(key)
        if row is not None and row.lease is not None and row.lease.token == token:
            await self.rows.delete_if(key, row.generation)

    async def expire(self, key: str, token: str) -> None:
        """Drop our lease from the journal row so the next `recover()` settles it."""
        row = await self.rows.get(key)
        if row is not None and row.lease is not None and row.lease.token == token:
            await self.rows.update_raw_if_current(key, row.generation, row.raw, lease=None)

    async def renew(self, key: str, token: str, expires_at: float) -> None:
        """Keep our journal row's lease alive while the host transaction runs."""
        row = await self.rows.get(key)
        if row is not None and row.lease is not None and row.lease.token == token:
            await self.rows.update_raw_if_current(key, row.generation, row.raw,
                                                  lease=Lease(token, expires_at))

    async def recover(
        self, bindings: PluginStateNamespace[Any], now: float
    ) -> list[RecoveredDeletion]:
        """Settle every journal row whose owner's lease expired; see the module docs."""
        report: list[RecoveredDeletion] = []
        for row in await self.rows.list_rows():
            try:
                entry = JournalEntry.from_json(row.record)
            except ValueError:
                await self.rows.delete_if(row.key, row.generation)
                continue
            if row.lease is not None and row.lease.live(now):
                report.append(RecoveredDeletion(row.key, entry.kind, "owner-alive"))
                continue
            outcome: Literal["restored", "kept-deleted", "key-taken"] = "kept-deleted"
            if entry.kind == "deletion" and entry.session_key and entry.session_id:
                session = await self.store.get_session(entry.session_key)
                if session is not None and session.session_id == entry.session_id:
                    restored = await bindings.register_raw_if_absent(row.key, entry.snapshot)
                    outcome = "restored" if restored is not None else "key-taken"
            # Remove the journal only if nobody superseded it while we decided.
            await self.rows.delete_if(row.key, row.generation)
            report.append(RecoveredDeletion(row.key, entry.kind, outcome))
        return report
