"""The `Store` protocol: sessions, transcript entries and plugin state.

Two implementations share one test suite: the embedded SQLite default
(`clawharness.store.sqlite`) and PostgreSQL (`clawharness.store.postgres`). Records are
frozen dataclasses; JSON columns hold plain JSON values (dict/list/str/num/bool/None).

Durability promise: when an append or write coroutine returns, its data is committed.
An append call is atomic: all of its entries are stored, or none.

Errors: `StoreError` for a failed read or write (a bad entry fails its whole append call
and nothing else), `StoreCorruptError` for a file that is not a database,
`ConditionalWriteConflict` for `create_session` on an existing key,
`SessionNotFoundError` from `update_session` and `SessionLeaseLostError` for a write
whose `fence` (a per-session writer lease, `clawharness.store.leases`) is no longer the
session's current lease. A write without a fence is not checked.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from clawharness.errors import StoreError
from clawharness.store.leases import (
    SessionLease,
    SessionLeaseBusy,
    SessionLeaseState,
    SessionLeaseWatch,
)
from clawharness.store.tool_outcomes import ToolCallClaim, ToolCallKey, ToolCallRecord

if TYPE_CHECKING:
    from clawharness.store.turn_records import StoredTurnRecord

__all__ = [
    "SCHEMA_VERSION",
    "SESSION_UPDATE_FIELDS",
    "AppendOutcome",
    "NewEntry",
    "PluginStateRecord",
    "SearchHit",
    "SearchTerm",
    "SessionRecord",
    "Store",
    "SyncPluginStateView",
    "TranscriptEntry",
    "check_session_update",
    "dump_json",
    "parse_search_query",
]

#: the PostgreSQL store's schema version that `open()` migrates to (SQLite counts its own)
SCHEMA_VERSION = 5


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
    """One stored transcript entry; `seq` starts at 1 per physical session."""

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
    """One appended entry, or (`appended=False`) the one already stored under its key."""

    entry: TranscriptEntry
    appended: bool


@dataclass(frozen=True, slots=True)
class SearchHit:
    """One search match; a higher `score` is a better match (0.0 when ranked by recency)."""

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

    async def update_session(self, key: str, *, fence: SessionLease | None = None,
                             **fields: Any) -> SessionRecord:
        """Set some of session_id, model_ref, agent_harness_id, meta; bumps updated_at.
        SessionNotFoundError if absent. `None` clears a nullable field; `meta` replaces
        the whole dict; another field name is a StoreError."""

    async def delete_session(self, key: str, *, fence: SessionLease | None = None) -> bool:
        """Delete the row and every transcript entry under the key. False if absent.
        The key's writer lease row stays (its fence keeps counting)."""

    # transcript ----------------------------------------------------------------
    async def append_entries(
        self, session_key: str, session_id: str, entries: Sequence[NewEntry], *,
        fence: SessionLease | None = None,
    ) -> list[AppendOutcome]:
        """Append atomically, in order, `seq` increasing per physical session.

        One outcome per entry, in order. A new entry's `seq` is one more than the highest
        stored for `session_id`. Content that is not JSON, or an empty role, fails the
        whole call with StoreError and stores none of it. An append is the session's
        latest activity: the row under `session_key`, while its session id is still
        `session_id`, gets `updated_at` = now (in the same transaction; nothing else of
        the row changes, and no row is created).
        With `fence`, the append happens only while that lease is the session's current
        one (checked in the same transaction), else SessionLeaseLostError.
        """

    async def read_entries(
        self, session_id: str, *, last: int | None = None, after_seq: int | None = None
    ) -> list[TranscriptEntry]:
        """Entries in seq order; `last` keeps only the newest N."""

    async def count_entries(self, session_id: str) -> int: ...

    async def truncate_entries(self, session_id: str, *, after_seq: int,
                               fence: SessionLease | None = None) -> int:
        """Delete entries with seq > after_seq (a rewind). Returns how many went.
        The next append continues at `after_seq + 1`."""

    # turn records (the turn inspector) ---------------------------------------------
    async def put_turn_records(self, records: Sequence[StoredTurnRecord]) -> None:
        """Store (or replace) the inspector's records of some turns, in one transaction
        (a record that is not JSON, or too large, fails the call and stores none)."""

    async def get_turn_record(self, run_id: str) -> dict[str, Any] | None:
        """One turn's record by its run id; None when absent."""

    async def list_turn_records(self, session_key: str, *,
                                limit: int = 50) -> list[dict[str, Any]]:
        """The newest records of a session key, newest first."""

    async def search(
        self, query: str, *, session_key: str | None = None, limit: int = 20
    ) -> list[SearchHit]:
        """Full-text search over entry text, best first (newest first among equals).

        `query` is free user text (see `parse_search_query`): every term must match
        (AND); a term ending in `*` matches as a prefix. Ranking is BM25-like over the
        newest few thousand matches, so very common terms stay fast (SQLite leaves very
        common terms out of the ranking; a query of only such terms comes newest first).
        Every entry whose append returned before the call is searchable, except the
        entries of a physical session its key has replaced (a reset: `update_session`
        with a new `session_id`): those stay stored, readable by their session id, and
        are never found again. Entries under a key with no session row are found.
        """

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
        """Write when the stored generation equals `expected_generation`; None otherwise.
        Value and lease are both replaced (no lease given clears it); generation + 1."""

    async def state_delete_if(self, namespace: str, key: str, expected_generation: int) -> bool: ...

    # per-session writer leases (see clawharness.store.leases) ----------------------
    async def acquire_session_lease(
        self, session_key: str, *, holder: str, ttl: float, ticket: int | None = None,
        token: str | None = None,
    ) -> SessionLease | SessionLeaseBusy:
        """Take the writer lease of `session_key` for `ttl` seconds, in one write.

        It succeeds when the lease is free (released or expired) and no live waiter is
        queued before `ticket` (None: before everyone). Otherwise the caller is queued,
        or its queue row refreshed, and gets `SessionLeaseBusy` with its ticket.
        `token` (default: a random one) is the lease's identity; a caller that chooses
        it can release a lease it won but never saw (its await was cancelled).
        """

    async def session_lease_state(
        self, session_key: str, *, ticket: int | None = None,
    ) -> SessionLeaseState:
        """Read the lease and the queue ahead of `ticket` (a waiter's cheap poll)."""

    async def renew_session_leases(
        self, leases: Sequence[SessionLease], *, ttl: float,
    ) -> list[SessionLease | None]:
        """Extend each lease still current to now + `ttl`; None for one that was lost."""

    async def release_session_lease(self, lease: SessionLease) -> bool:
        """Free the lease if it is still current (by token only). False if it was not."""

    async def leave_session_lease_queue(self, session_key: str, ticket: int) -> None:
        """Drop a waiter's queue row (a caller that gave up waiting)."""

    async def assert_session_lease(self, lease: SessionLease) -> None:
        """Raise SessionLeaseLostError unless `lease` is the session's current lease."""

    def watch_session_lease(self, session_key: str) -> SessionLeaseWatch:
        """Subscribe to the key's lease changes; `close()` the watch when done."""

    # tool calls exactly once (see clawharness.store.tool_outcomes) -----------------
    async def claim_tool_call(self, key: ToolCallKey, *, tool_name: str,
                              state_changing: bool) -> ToolCallClaim:
        """Record that the call starts (committed), or find the row an earlier attempt
        of the turn left under the same key (`fresh` False)."""

    async def commit_tool_outcome(self, key: ToolCallKey, *, outcome: dict[str, Any],
                                  is_error: bool) -> ToolCallRecord:
        """Commit the claimed call's terminal outcome (the first one committed stays)."""


#: the fields `update_session` may set
SESSION_UPDATE_FIELDS = frozenset({"session_id", "model_ref", "agent_harness_id", "meta"})

_WORD = re.compile(r"[^\W_]+")
_MAX_TERMS = 16


@dataclass(frozen=True, slots=True)
class SearchTerm:
    """One AND-ed search term: a phrase of words; `prefix` makes the last one a prefix."""

    words: tuple[str, ...]
    prefix: bool = False


def parse_search_query(query: str) -> list[SearchTerm]:
    """Turn free user text into safe search terms.

    Whitespace separates terms; inside a term only letters and digits count (`foo-bar`
    is the phrase "foo bar"), so no query syntax from the user reaches the database. A
    trailing `*` asks for a prefix match; prefixes under 2 characters match whole words
    only, because a one-letter prefix would scan the whole index. At most 16 terms.
    """
    terms: list[SearchTerm] = []
    for raw in query.split():
        words = tuple(w.lower() for w in _WORD.findall(raw))
        if not words:
            continue
        prefix = raw.endswith("*") and len(words[-1]) >= 2
        term = SearchTerm(words, prefix)
        if term not in terms:
            terms.append(term)
        if len(terms) >= _MAX_TERMS:
            break
    return terms


_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def dump_json(value: Any, what: str) -> str:
    """Serialize one JSON column value (strict JSON: no NaN); StoreError if impossible."""
    try:
        return _ENCODER.encode(value)
    except (TypeError, ValueError) as exc:
        raise StoreError(f"{what} is not JSON-serializable: {exc}") from exc


def check_session_update(key: str, fields: Mapping[str, Any]) -> dict[str, Any]:
    """Validate `update_session` fields; returns them with `meta` copied."""
    unknown = sorted(set(fields) - SESSION_UPDATE_FIELDS)
    if unknown:
        raise StoreError(
            f"update_session({key!r}): cannot set {', '.join(unknown)}; "
            f"settable fields are {', '.join(sorted(SESSION_UPDATE_FIELDS))}"
        )
    out = dict(fields)
    if "session_id" in out and not isinstance(out["session_id"], str):
        raise StoreError(f"update_session({key!r}): session_id must be a string")
    if "meta" in out:
        if not isinstance(out["meta"], dict):
            raise StoreError(f"update_session({key!r}): meta must be a dict")
        out["meta"] = dict(out["meta"])
    return out
