"""The turn inspector's records in the store: one JSON document per turn, by run id.

A record is what `clawharness.attempt.inspector.TurnRecord.to_json()` gives; the store
keeps it opaque (it only indexes the run id, the session key and the time), so the
record's shape can grow without a migration. Both stores add the table as a versioned
migration (SQLite schema 4, PostgreSQL schema 3); deleting a session deletes its
records, a reset keeps them (they name the session id they ran on).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from clawharness.errors import StoreError
from clawharness.store.records import dump_json

__all__ = ["POSTGRES_MIGRATION_V3", "SQLITE_MIGRATION_V4", "TURN_RECORDS_MAX_BYTES",
           "StoredTurnRecord", "encode"]


@dataclass(frozen=True, slots=True)
class StoredTurnRecord:
    """One turn's record as the store indexes it (`record` is opaque JSON)."""

    run_id: str
    session_key: str
    session_id: str
    created_at: float
    record: Mapping[str, Any]

#: a record larger than this (after the recorder's own caps) is refused by the store
TURN_RECORDS_MAX_BYTES: Final = 4 * 1024 * 1024

SQLITE_MIGRATION_V4: tuple[str, ...] = (
    """CREATE TABLE turn_records (
        run_id TEXT PRIMARY KEY,
        session_key TEXT NOT NULL,
        session_id TEXT NOT NULL,
        created_at REAL NOT NULL,
        record TEXT NOT NULL
    )""",
    "CREATE INDEX turn_records_by_session_key ON turn_records (session_key, created_at)",
)

POSTGRES_MIGRATION_V3: tuple[str, ...] = (
    """CREATE TABLE turn_records (
        run_id text COLLATE "C" PRIMARY KEY,
        session_key text COLLATE "C" NOT NULL,
        session_id text NOT NULL,
        created_at double precision NOT NULL,
        record text NOT NULL
    )""",
    "CREATE INDEX turn_records_by_session_key ON turn_records (session_key, created_at)",
)


def encode(record: StoredTurnRecord) -> str:
    """The record's JSON column; StoreError when it is not JSON or too large."""
    raw = dump_json(record.record, f"turn record {record.run_id!r}")
    if len(raw) > TURN_RECORDS_MAX_BYTES:
        raise StoreError(f"turn record {record.run_id!r} is {len(raw)} bytes, over the "
                         f"limit of {TURN_RECORDS_MAX_BYTES}")
    return raw
