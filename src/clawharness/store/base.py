"""The `Store` protocol: sessions, transcript entries and plugin state.

Two implementations share one test suite: the embedded SQLite default
(`clawharness.store.sqlite`) and PostgreSQL (`clawharness.store.postgres`). Records are
frozen dataclasses; JSON columns hold plain JSON values (dict/list/str/num/bool/None).

Durability promise: when an append or write coroutine returns, its data is committed.
An append call is atomic: all of its entries are stored, or none.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

__all__ = [
    "AppendOutcome",
    "NewEntry",
    "PluginStateRecord",
    "SearchHit",
    "SessionRecord",
    "Store",
    "SyncPluginStateView",
    "TranscriptEntry",
]

#: the store schema version that `open()` migrates to
SCHEMA_VERSION = 1


@dataclass(frozen=True, slots=True)
class SessionRecord:
    """One session row: a stable key and its current physical session id."""

    key: str
    session_id: str
    agent_id: str
    model_ref: str | None = None
    agent_harness_id: str | None = None
    created_at: float = 0.0
    updated_at: float = 0.0
    meta: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class NewEntry:
    """A transcript entry to append.

    `idempotency_key`, when given, makes a retried append a no-op: the store returns
    the entry already stored under that key (per physical session) with
    `appended=False`. `text` is what the search index sees (defaults to none).
    """

    role: str
    content: Any
    metadata: dict[str, Any] | None = None
    idempotency_key: str | None = None
    text: str | None = None


@dataclass(frozen=True, slots=True)
class TranscriptEntry:
    session_key: str
    session_id: str
    seq: int
    role: str
    content: Any
    metadata: dict[str, Any]
    idempotency_key: str | None
    text: str | None
    created_at: float


@dataclass(frozen=True, slots=True)
class AppendOutcome:
    entry: TranscriptEntry
    appended: bool


@dataclass(frozen=True, slots=True)
class SearchHit:
    session_key: str
    session_id: str
    seq: int
    role: str
    text: str
    score: float


@dataclass(frozen=True, slots=True)
class PluginStateRecord:
    """One plugin-state row. `generation` increases by one on every write."""

    namespace: str
    key: str
    value: Any
    generation: int
    lease_token: str | None = None
    lease_expires_at: float | None = None


@runtime_checkable
class SyncPluginStateView(Protocol):
    """Synchronous access to the same plugin-state rows (for lease assertions and the
    synchronous `commit()` of deletion transactions)."""

    def state_get_sync(self, namespace: str, key: str) -> PluginStateRecord | None: ...

    def state_insert_if_absent_sync(
        self, namespace: str, key: str, value: Any, *,
        lease_token: str | None = None, lease_expires_at: float | None = None,
    ) -> PluginStateRecord | None: ...

    def state_update_if_sync(
        self, namespace: str, key: str, expected_generation: int, value: Any, *,
        lease_token: str | None = None, lease_expires_at: float | None = None,
    ) -> PluginStateRecord | None: ...

    def state_delete_if_sync(self, namespace: str, key: str, expected_generation: int) -> bool: ...


@runtime_checkable
class Store(SyncPluginStateView, Protocol):
    """Persistent state of one host (or a cluster of hosts, on PostgreSQL)."""

    url: str

    async def open(self) -> None:
        """Connect, create or migrate the schema. Raises StoreCorruptError on a bad file."""

    async def close(self) -> None: ...

    # sessions -----------------------------------------------------------------
    async def create_session(self, record: SessionRecord) -> SessionRecord:
        """Insert a new session row; ConditionalWriteConflict if the key exists."""

    async def get_session(self, key: str) -> SessionRecord | None: ...

    async def list_sessions(
        self, *, agent_id: str | None = None, limit: int | None = None
    ) -> list[SessionRecord]:
        """Most recently updated first."""

    async def update_session(self, key: str, **fields: Any) -> SessionRecord:
        """Set some of session_id, model_ref, agent_harness_id, meta; bumps updated_at.
        SessionNotFoundError if absent."""

    async def delete_session(self, key: str) -> bool:
        """Delete the row and every transcript entry under the key. False if absent."""

    # transcript ----------------------------------------------------------------
    async def append_entries(
        self, session_key: str, session_id: str, entries: Sequence[NewEntry]
    ) -> list[AppendOutcome]:
        """Append atomically, in order, `seq` increasing per physical session."""

    async def read_entries(
        self, session_id: str, *, last: int | None = None, after_seq: int | None = None
    ) -> list[TranscriptEntry]:
        """Entries in seq order; `last` keeps only the newest N."""

    async def count_entries(self, session_id: str) -> int: ...

    async def truncate_entries(self, session_id: str, *, after_seq: int) -> int:
        """Delete entries with seq > after_seq (a rewind). Returns how many went."""

    async def search(
        self, query: str, *, session_key: str | None = None, limit: int = 20
    ) -> list[SearchHit]:
        """Full-text search over entry text, best first (newest first among equals)."""

    # plugin state ----------------------------------------------------------------
    async def state_get(self, namespace: str, key: str) -> PluginStateRecord | None: ...

    async def state_list(self, namespace: str, *, prefix: str = "") -> list[PluginStateRecord]: ...

    async def state_insert_if_absent(
        self, namespace: str, key: str, value: Any, *,
        lease_token: str | None = None, lease_expires_at: float | None = None,
    ) -> PluginStateRecord | None:
        """Insert at generation 1; None when the key already exists."""

    async def state_update_if(
        self, namespace: str, key: str, expected_generation: int, value: Any, *,
        lease_token: str | None = None, lease_expires_at: float | None = None,
    ) -> PluginStateRecord | None:
        """Write when the stored generation equals `expected_generation`; None otherwise."""

    async def state_delete_if(self, namespace: str, key: str, expected_generation: int) -> bool: ...
