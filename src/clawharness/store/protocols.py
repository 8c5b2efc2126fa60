"""The store's protocols, one per concern, and `Store`, their combination.

Two implementations share one test suite and implement every protocol here: the embedded
SQLite default (`clawharness.store.sqlite`) and PostgreSQL (`clawharness.store.postgres`).
A consumer asks only for the protocol it uses (the session writers for
`SessionLeaseStore`, the transcript mirror for `TranscriptStore`, the tool-outcome
ledger for `ToolOutcomeStore`, ...); what wires the parts together holds a `Store`.

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

from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable

from clawharness.store.budgets import (
    Amount,
    BudgetClaim,
    BudgetGrant,
    BudgetRefusal,
    BudgetState,
    Counters,
    SpendGrouping,
    SpendRecord,
    SpendSummary,
)
from clawharness.store.leases import (
    SessionLease,
    SessionLeaseBusy,
    SessionLeaseState,
    SessionLeaseWatch,
)
from clawharness.store.records import (
    AppendOutcome,
    NewEntry,
    PluginStateRecord,
    SearchHit,
    SessionRecord,
    TranscriptEntry,
)
from clawharness.store.subagents import SubagentRecord, SubagentStatus
from clawharness.store.tool_outcomes import ToolCallClaim, ToolCallKey, ToolCallRecord
from clawharness.store.turn_records import StoredTurnRecord

__all__ = [
    "BudgetLedgerStore",
    "PluginStateStore",
    "SessionLeaseStore",
    "SessionStore",
    "Store",
    "SubagentRegistryStore",
    "SyncPluginStateView",
    "ToolOutcomeStore",
    "TranscriptSearch",
    "TranscriptStore",
    "TurnRecordStore",
]


@runtime_checkable
class SessionStore(Protocol):
    """Session rows: a stable key and its current physical session id."""

    url: str

    async def create_session(self, record: SessionRecord) -> SessionRecord:
        """Insert a new session row; ConditionalWriteConflict if the key exists."""

    async def create_session_with_entries(
        self, record: SessionRecord, entries: Sequence[NewEntry], *,
        fence: SessionLease | None = None,
    ) -> tuple[SessionRecord, list[AppendOutcome] | Exception]:
        """`create_session(record)`, then `append_entries(record.key, record.session_id,
        entries, fence=fence)`, as one write where the store can (a new session's row
        and the first entries of its transcript). Raises what `create_session` would
        (ConditionalWriteConflict when the key exists), and then nothing is written;
        once the row is made: (the row, the append's outcomes, or the error that refused
        the append: its lease lost, content not JSON, the store failing)."""

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


@runtime_checkable
class TranscriptStore(Protocol):
    """Transcript entries of physical sessions, append-only but for a rewind."""

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


@runtime_checkable
class TranscriptSearch(Protocol):
    """Full-text search over transcript entry text."""

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
class PluginStateStore(SyncPluginStateView, Protocol):
    """Plugin state: generation-checked rows with an optional lease, by namespace and key
    (native session bindings, their journals and leases live here)."""

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


@runtime_checkable
class SessionLeaseStore(Protocol):
    """Per-session writer leases (see `clawharness.store.leases`)."""

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

    async def release_session_lease(self, lease: SessionLease, *, wait: bool = True) -> bool:
        """Free the lease if it is still current (by token only). False if it was not.
        `wait=False`: the caller does not wait for the release to be stored (a holder
        leaving its session): the store may commit it with its next write, a few
        milliseconds later at most, so another process may see the lease held that much
        longer (and a crash meanwhile leaves it to expire, as a crash before it would)."""

    async def leave_session_lease_queue(self, session_key: str, ticket: int) -> None:
        """Drop a waiter's queue row (a caller that gave up waiting)."""

    async def assert_session_lease(self, lease: SessionLease) -> None:
        """Raise SessionLeaseLostError unless `lease` is the session's current lease."""

    def watch_session_lease(self, session_key: str) -> SessionLeaseWatch:
        """Subscribe to the key's lease changes; `close()` the watch when done."""


@runtime_checkable
class ToolOutcomeStore(Protocol):
    """Tool calls exactly once (see `clawharness.store.tool_outcomes`)."""

    async def claim_tool_call(self, key: ToolCallKey, *, tool_name: str,
                              state_changing: bool) -> ToolCallClaim:
        """Record that the call starts (committed), or find the row an earlier attempt
        of the turn left under the same key (`fresh` False)."""

    async def commit_tool_outcome(self, key: ToolCallKey, *, outcome: dict[str, Any],
                                  is_error: bool) -> ToolCallRecord:
        """Commit the claimed call's terminal outcome (the first one committed stays)."""


@runtime_checkable
class TurnRecordStore(Protocol):
    """The turn inspector's records (see `clawharness.store.turn_records`)."""

    async def put_turn_records(self, records: Sequence[StoredTurnRecord]) -> None:
        """Store (or replace) the inspector's records of some turns, in one transaction
        (a record that is not JSON, or too large, fails the call and stores none)."""

    async def get_turn_record(self, run_id: str) -> dict[str, Any] | None:
        """One turn's record by its run id; None when absent."""

    async def list_turn_records(self, session_key: str, *,
                                limit: int = 50) -> list[dict[str, Any]]:
        """The newest records of a session key, newest first."""


@runtime_checkable
class BudgetLedgerStore(Protocol):
    """Budgets and spend (see `clawharness.store.budgets`): counters per budget key,
    holds per running turn, one spend row per finished turn."""

    async def reserve_budget(self, run_id: str, claims: Sequence[BudgetClaim], amount: Amount,
                             *, ttl: float) -> BudgetGrant | BudgetRefusal:
        """Hold `amount` on every claim's budget for `ttl` seconds, atomically: on all of
        them, or (the first that has no room) on none. Holds whose expiry passed are
        reclaimed first. Holding again under the same `run_id` adds to its holds."""

    async def settle_budget(self, record: SpendRecord, keys: Sequence[str],
                            spent: Amount, *, holds: bool = True, wait: bool = True) -> bool:
        """Release the run's holds and, unless a spend row for `record.run_id` exists
        already, store it and add `spent` to every key, in one transaction. True when
        this call counted the spend (False: a retried turn, counted before). `holds`
        False: the run never held anything under its id (it reserved from its process's
        allowance, or no budget applied), so there are none to look for. `wait=False`
        (a spend row written behind its turn): as `release_session_lease`'s, the store
        may commit it with its next write, a few milliseconds later at most (this
        process's reads see it at once)."""

    async def release_budget(self, run_id: str, keys: Sequence[str]) -> None:
        """Give back the run's holds on `keys` and count nothing (a turn that raised
        after it reserved): no spend row, so a retry of the run is still counted."""

    async def grant_budget(self, key: str, amount: Amount) -> BudgetState:
        """Raise one budget by `amount` (an approver's extension); its new state."""

    async def budget_states(self, keys: Sequence[str]) -> list[BudgetState]:
        """The counters of `keys`, in order (zero for a key never used)."""

    async def budget_counters(self, keys: Sequence[str]) -> dict[str, Counters]:
        """The counters of those of `keys` used so far, as the ledger's rows hold them
        (`Counters`: a turn's check reads them on its path, no object per budget)."""

    async def budget_used(self, keys: Sequence[str], measures: tuple[int, ...]) -> list[int]:
        """For each of `keys`, in order: what its budget used in `measures[i]` (a
        `MEASURES` index), net of what was granted: spent + reserved - granted (0 for a
        key never used). The columns a turn's check needs, and nothing else."""

    async def summarize_spend(self, *, since: float, by: SpendGrouping,
                              session_key: str | None = None) -> list[SpendSummary]:
        """Spend rows of turns from `since` (epoch seconds), summed per group; with
        `session_key`, that session's turns only."""


@runtime_checkable
@runtime_checkable
class SubagentRegistryStore(Protocol):
    """The child sessions `sessions_spawn` started (see `clawharness.store.subagents`)."""

    async def register_subagent(self, record: SubagentRecord) -> None:
        """Insert a child's row; `ConditionalWriteConflict` when its key has one."""

    async def mark_subagent(self, child_key: str, status: SubagentStatus, *,
                            when: Sequence[SubagentStatus], result: str | None = None,
                            error: str | None = None) -> SubagentRecord | None:
        """Set the child's status (and result or error; its end time when terminal) if
        its status is one of `when`; the changed row, or None when it was not."""

    async def note_subagent_announced(self, child_key: str) -> None:
        """Record that the parent was told of the child's ending."""

    async def beat_subagents(self, owner: str,
                             child_keys: Sequence[str]) -> list[SubagentRecord]:
        """`owner` still runs these children (their active rows it owns get a fresh
        heartbeat); the rows as they are now, so the owner sees a kill."""

    async def get_subagent(self, child_key: str) -> SubagentRecord | None: ...

    async def list_subagents(self, parent_key: str | None = None, *, active: bool = False,
                             limit: int = 500) -> list[SubagentRecord]:
        """The children of `parent_key` (every child when None), oldest first; `active`:
        only those queued or running."""


class Store(SessionStore, TranscriptStore, TranscriptSearch, PluginStateStore,
            SessionLeaseStore, ToolOutcomeStore, TurnRecordStore, BudgetLedgerStore,
            SubagentRegistryStore, Protocol):
    """Persistent state of one host (or a cluster of hosts, on PostgreSQL): every concern
    above, and the connection's life."""

    url: str

    async def open(self) -> None:
        """Connect, create or migrate the schema. Raises StoreCorruptError on a bad file."""

    async def close(self) -> None: ...
