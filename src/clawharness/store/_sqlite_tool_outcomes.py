"""The SQLite store's tool-call ledger (see `clawharness.store.tool_outcomes`)."""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from clawharness.errors import StoreError
from clawharness.store.tool_outcomes import (
    ToolCallClaim,
    ToolCallKey,
    ToolCallRecord,
    row_to_record,
)

__all__ = ["MIGRATION_V5", "ToolOutcomeMethods"]

_T = TypeVar("_T")

#: v5: one row per tool call of a durable turn: claimed before it runs, its outcome after
MIGRATION_V5: tuple[str, ...] = (
    """CREATE TABLE tool_outcomes (
        session_id TEXT NOT NULL,
        run_id TEXT NOT NULL,
        call_id TEXT NOT NULL,
        tool_name TEXT NOT NULL,
        state_changing INTEGER NOT NULL,
        started_at REAL NOT NULL,
        outcome TEXT,
        is_error INTEGER NOT NULL DEFAULT 0,
        committed_at REAL,
        PRIMARY KEY (session_id, run_id, call_id)
    ) WITHOUT ROWID""",
)
_COLS = "tool_name, state_changing, started_at, outcome, is_error, committed_at"
_CLAIM = ("INSERT INTO tool_outcomes (session_id, run_id, call_id, tool_name, state_changing, "
          "started_at) VALUES (?, ?, ?, ?, ?, ?) "
          "ON CONFLICT (session_id, run_id, call_id) DO NOTHING")
_GET = f"SELECT {_COLS} FROM tool_outcomes WHERE session_id = ? AND run_id = ? AND call_id = ?"
_COMMIT = ("UPDATE tool_outcomes SET outcome = ?, is_error = ?, committed_at = ? "
           "WHERE session_id = ? AND run_id = ? AND call_id = ? AND committed_at IS NULL")


def _args(key: ToolCallKey) -> tuple[str, str, str]:
    return (key.session_id, key.run_id, key.call_id)


def _claim(conn: sqlite3.Connection, key: ToolCallKey, tool_name: str,
           state_changing: bool, now: float) -> ToolCallClaim:
    fresh = conn.execute(_CLAIM, (*_args(key), tool_name, int(state_changing), now)).rowcount > 0
    row = conn.execute(_GET, _args(key)).fetchone()
    return ToolCallClaim(row_to_record(key, tuple(row)), fresh)


def _commit(conn: sqlite3.Connection, key: ToolCallKey, outcome: str, is_error: bool,
            now: float) -> ToolCallRecord:
    conn.execute(_COMMIT, (outcome, int(is_error), now, *_args(key)))
    row = conn.execute(_GET, _args(key)).fetchone()
    if row is None:
        raise StoreError(f"tool call {key.text} was never claimed: its outcome has no row")
    return row_to_record(key, tuple(row))


class ToolOutcomeMethods:
    """The `Store` protocol's tool-call ledger methods, for `SqliteStore`: one-row
    writes, committed before they return."""

    if TYPE_CHECKING:
        async def _write_small(self, fn: Callable[[sqlite3.Connection], _T]) -> _T: ...

    async def claim_tool_call(self, key: ToolCallKey, *, tool_name: str,
                              state_changing: bool) -> ToolCallClaim:
        return await self._write_small(
            lambda c: _claim(c, key, tool_name, state_changing, time.time()))

    async def commit_tool_outcome(self, key: ToolCallKey, *, outcome: dict[str, Any],
                                  is_error: bool) -> ToolCallRecord:
        text = json.dumps(outcome, default=str)
        return await self._write_small(lambda c: _commit(c, key, text, is_error, time.time()))
