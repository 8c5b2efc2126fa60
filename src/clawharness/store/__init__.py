"""Persistent state: sessions, transcript entries, search, plugin state, writer leases,
tool outcomes, the turn inspector's records, the budget ledger and the sub-agent registry.

`open_store(url_or_path)` picks the implementation; call `await store.open()` next. The
protocols are cut by concern (`protocols`); a consumer asks for the one it uses, and
`Store` is their combination, which both implementations (`sqlite`, `postgres`) are.

    records.py        the rows: SessionRecord, TranscriptEntry, PluginStateRecord, ...
    protocols.py      SessionStore, TranscriptStore, TranscriptSearch, PluginStateStore,
                      SessionLeaseStore, ToolOutcomeStore, TurnRecordStore; Store
    leases.py         per-session writer leases: their records and rules
    tool_outcomes.py  tool calls exactly once: their records
    turn_records.py   the turn inspector's records and their tables
    budgets.py        budget counters, holds and spend rows: records and rules
    subagents.py      the sub-agent registry: one row per spawned child session
    search_query.py   free search text as safe terms
    sqlite.py         the embedded default (and its `_sqlite_*` parts)
    postgres.py       PostgreSQL (and its `_postgres_*` parts)
"""

from __future__ import annotations

from pathlib import Path

from clawharness.errors import StoreError
from clawharness.extras import requires_extra
from clawharness.names import display_store_url, store_url_error
from clawharness.store.budgets import (
    MEASURES,
    Amount,
    BudgetClaim,
    BudgetGrant,
    BudgetLimit,
    BudgetRefusal,
    BudgetState,
    Counters,
    LimitCheck,
    Measure,
    SpendGrouping,
    SpendRecord,
    SpendSummary,
    counters_refusal,
    first_refusal,
    limit_checks,
    limits_refusal,
)
from clawharness.store.leases import (
    STEERING_NAMESPACE,
    SessionLease,
    SessionLeaseBusy,
    SessionLeaseState,
    waiter_ttl,
)
from clawharness.store.protocols import (
    BudgetLedgerStore,
    PluginStateStore,
    SessionLeaseStore,
    SessionStore,
    Store,
    SubagentRegistryStore,
    SyncPluginStateView,
    ToolOutcomeStore,
    TranscriptSearch,
    TranscriptStore,
    TurnRecordStore,
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
    "MEASURES",
    "STEERING_NAMESPACE",
    "Amount",
    "AppendOutcome",
    "BudgetClaim",
    "BudgetGrant",
    "BudgetLedgerStore",
    "BudgetLimit",
    "BudgetRefusal",
    "BudgetState",
    "Counters",
    "LimitCheck",
    "Measure",
    "NewEntry",
    "PluginStateRecord",
    "PluginStateStore",
    "SearchHit",
    "SessionLease",
    "SessionLeaseBusy",
    "SessionLeaseState",
    "SessionLeaseStore",
    "SessionRecord",
    "SessionStore",
    "SpendGrouping",
    "SpendRecord",
    "SpendSummary",
    "Store",
    "StoredTurnRecord",
    "SubagentRecord",
    "SubagentRegistryStore",
    "SubagentStatus",
    "SyncPluginStateView",
    "ToolCallClaim",
    "ToolCallKey",
    "ToolCallRecord",
    "ToolOutcomeStore",
    "TranscriptEntry",
    "TranscriptSearch",
    "TranscriptStore",
    "TurnRecordStore",
    "counters_refusal",
    "first_refusal",
    "limit_checks",
    "limits_refusal",
    "open_store",
    "verify_sqlite_store",
    "waiter_ttl",
]


def open_store(url_or_path: str | Path) -> Store:
    """A store (not yet opened) for `sqlite:///relative.db`, `sqlite:////abs/path.db`,
    a bare file path, or `postgresql://...` / `postgres://...`."""
    target = str(url_or_path)
    problem = store_url_error(target)
    if problem is not None:
        raise StoreError(f"store url {display_store_url(target)!r}: {problem}")
    if target.startswith(("postgresql://", "postgres://")):
        with requires_extra("postgres"):
            from clawharness.store.postgres import PostgresStore

        return PostgresStore(target)
    target = target.removeprefix("sqlite:///")
    from clawharness.store.sqlite import SqliteStore

    return SqliteStore(target)


def verify_sqlite_store(path: str | Path) -> None:
    """Check an existing SQLite store file without writing to it (`doctor`): damage is
    StoreCorruptError (with what to do), an unreadable or too-new file StoreError."""
    from clawharness.store._sqlite_file import verify_file
    from clawharness.store.sqlite import _MIGRATIONS, SCHEMA_VERSION

    verify_file(Path(path), SCHEMA_VERSION, _MIGRATIONS)
