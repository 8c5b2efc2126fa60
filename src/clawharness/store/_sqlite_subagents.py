"""The SQLite store's sub-agent registry (see `clawharness.store.subagents`)."""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, TypeVar

from clawharness.errors import ConditionalWriteConflict
from clawharness.store.subagents import (
    SUBAGENT_COLUMNS,
    TERMINAL_STATUSES,
    SubagentRecord,
    SubagentStatus,
    row_to_subagent,
)

__all__ = ["MIGRATION_V7", "MIGRATION_V8", "SubagentMethods"]

_T = TypeVar("_T")

#: v7: one row per child session a sessions_spawn started
MIGRATION_V7: tuple[str, ...] = (
    """CREATE TABLE IF NOT EXISTS subagents (
        child_key TEXT PRIMARY KEY,
        parent_key TEXT NOT NULL,
        run_id TEXT NOT NULL,
        agent_id TEXT NOT NULL,
        status TEXT NOT NULL,
        depth INTEGER NOT NULL,
        task TEXT NOT NULL,
        label TEXT,
        context TEXT NOT NULL,
        runtime TEXT,
        model_ref TEXT,
        owner TEXT,
        created_at REAL NOT NULL,
        heartbeat_at REAL NOT NULL,
        ended_at REAL,
        result TEXT,
        error TEXT,
        announced INTEGER NOT NULL DEFAULT 0
    ) WITHOUT ROWID""",
    "CREATE INDEX IF NOT EXISTS subagents_by_parent ON subagents (parent_key, created_at)",
)
#: v8: the HTTP API caller a child's turns count on (`SubagentRecord.caller`)
MIGRATION_V8: tuple[str, ...] = ("ALTER TABLE subagents ADD COLUMN caller TEXT",)
_GET = f"SELECT {SUBAGENT_COLUMNS} FROM subagents WHERE child_key = ?"


def _insert(conn: sqlite3.Connection, record: SubagentRecord) -> None:
    marks = ", ".join("?" * len(record.values()))
    try:
        conn.execute(f"INSERT INTO subagents ({SUBAGENT_COLUMNS}) VALUES ({marks})",
                     tuple(int(v) if isinstance(v, bool) else v for v in record.values()))
    except sqlite3.IntegrityError as exc:
        raise ConditionalWriteConflict(
            f"sub-agent {record.child_key} is already registered") from exc


def _get(conn: sqlite3.Connection, child_key: str) -> SubagentRecord | None:
    row = conn.execute(_GET, (child_key,)).fetchone()
    return None if row is None else row_to_subagent(row)


def _mark(conn: sqlite3.Connection, child_key: str, status: SubagentStatus,
          result: str | None, error: str | None, when: Sequence[str],
          now: float) -> SubagentRecord | None:
    ended = now if status in TERMINAL_STATUSES else None
    marks = ", ".join("?" * len(when))
    changed = conn.execute(
        "UPDATE subagents SET status = ?, result = coalesce(?, result), "
        "error = coalesce(?, error), ended_at = coalesce(?, ended_at), heartbeat_at = ? "
        f"WHERE child_key = ? AND status IN ({marks})",
        (status, result, error, ended, now, child_key, *when)).rowcount
    return _get(conn, child_key) if changed else None


def _beat(conn: sqlite3.Connection, owner: str, keys: Sequence[str],
          now: float) -> list[SubagentRecord]:
    found: list[SubagentRecord] = []
    for key in keys:
        conn.execute("UPDATE subagents SET heartbeat_at = ? WHERE child_key = ? AND "
                     "owner = ? AND status IN ('queued', 'running')", (now, key, owner))
        record = _get(conn, key)
        if record is not None:
            found.append(record)
    return found


def _list(conn: sqlite3.Connection, parent_key: str | None, active: bool,
          limit: int) -> list[SubagentRecord]:
    where, args = [], []
    if parent_key is not None:
        where.append("parent_key = ?")
        args.append(parent_key)
    if active:
        where.append("status IN ('queued', 'running')")
    clause = f"WHERE {' AND '.join(where)} " if where else ""
    rows = conn.execute(f"SELECT {SUBAGENT_COLUMNS} FROM subagents {clause}"
                        "ORDER BY created_at, child_key LIMIT ?", (*args, limit)).fetchall()
    return [row_to_subagent(r) for r in rows]


class SubagentMethods:
    """The `Store` protocol's sub-agent registry methods, for `SqliteStore`."""

    if TYPE_CHECKING:
        async def _write_small(self, fn: Callable[[sqlite3.Connection], _T]) -> _T: ...
        async def _read(self, fn: Callable[[sqlite3.Connection], _T], *,
                        inline: bool = False) -> _T: ...

    async def register_subagent(self, record: SubagentRecord) -> None:
        await self._write_small(lambda c: _insert(c, record))

    async def mark_subagent(self, child_key: str, status: SubagentStatus, *,
                            when: Sequence[SubagentStatus], result: str | None = None,
                            error: str | None = None) -> SubagentRecord | None:
        return await self._write_small(
            lambda c: _mark(c, child_key, status, result, error, when, time.time()))

    async def note_subagent_announced(self, child_key: str) -> None:
        await self._write_small(lambda c: c.execute(
            "UPDATE subagents SET announced = 1 WHERE child_key = ?", (child_key,)))

    async def beat_subagents(self, owner: str,
                             child_keys: Sequence[str]) -> list[SubagentRecord]:
        return await self._write_small(lambda c: _beat(c, owner, child_keys, time.time()))

    async def get_subagent(self, child_key: str) -> SubagentRecord | None:
        return await self._read(lambda c: _get(c, child_key), inline=True)

    async def list_subagents(self, parent_key: str | None = None, *, active: bool = False,
                             limit: int = 500) -> list[SubagentRecord]:
        return await self._read(lambda c: _list(c, parent_key, active, limit))
