"""The PostgreSQL store's tool-call ledger (see `clawharness.store.tool_outcomes`)."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

import psycopg

from clawharness.errors import StoreError
from clawharness.store.tool_outcomes import (
    ToolCallClaim,
    ToolCallKey,
    ToolCallRecord,
    row_to_record,
)

__all__ = ["MIGRATION_V4", "ToolOutcomeMethods"]

Conn = psycopg.AsyncConnection[Any]

#: v4: one row per tool call of a durable turn: claimed before it runs, its outcome after
MIGRATION_V4: tuple[str, ...] = (
    """CREATE TABLE tool_outcomes (
        session_id text COLLATE "C" NOT NULL,
        run_id text COLLATE "C" NOT NULL,
        call_id text COLLATE "C" NOT NULL,
        tool_name text NOT NULL,
        state_changing boolean NOT NULL,
        started_at double precision NOT NULL,
        outcome jsonb,
        is_error boolean NOT NULL DEFAULT false,
        committed_at double precision,
        PRIMARY KEY (session_id, run_id, call_id)
    )""",
)
_NOW = "extract(epoch FROM statement_timestamp())::float8"
_COLS = "tool_name, state_changing, started_at, outcome, is_error, committed_at"
_CLAIM = ("INSERT INTO tool_outcomes (session_id, run_id, call_id, tool_name, state_changing, "
          f"started_at) VALUES (%s, %s, %s, %s, %s, {_NOW}) "
          "ON CONFLICT (session_id, run_id, call_id) DO NOTHING RETURNING true")
_GET = (f"SELECT {_COLS} FROM tool_outcomes "
        "WHERE session_id = %s AND run_id = %s AND call_id = %s")
_COMMIT = (f"UPDATE tool_outcomes SET outcome = %s::jsonb, is_error = %s, committed_at = {_NOW} "
           "WHERE session_id = %s AND run_id = %s AND call_id = %s AND committed_at IS NULL")


def _args(key: ToolCallKey) -> tuple[str, str, str]:
    return (key.session_id, key.run_id, key.call_id)


class ToolOutcomeMethods:
    """The `Store` protocol's tool-call ledger methods, for `PostgresStore`."""

    if TYPE_CHECKING:
        async def _run(self, what: str, fn: Callable[[Conn], Awaitable[Any]], *,
                       tx: bool = True, pipelined: bool = False) -> Any: ...

    async def claim_tool_call(self, key: ToolCallKey, *, tool_name: str,
                              state_changing: bool) -> ToolCallClaim:
        async def fn(conn: Conn) -> ToolCallClaim:
            claiming = await conn.execute(_CLAIM, (*_args(key), tool_name, state_changing))
            reading = await conn.execute(_GET, _args(key))
            made = await claiming.fetchone()
            row = await reading.fetchone()
            assert row is not None
            return ToolCallClaim(row_to_record(key, tuple(row)), made is not None)

        claim: ToolCallClaim = await self._run("claim a tool call", fn, pipelined=True)
        return claim

    async def commit_tool_outcome(self, key: ToolCallKey, *, outcome: dict[str, Any],
                                  is_error: bool) -> ToolCallRecord:
        text = json.dumps(outcome, default=str)

        async def fn(conn: Conn) -> ToolCallRecord:
            await conn.execute(_COMMIT, (text, is_error, *_args(key)))
            row = await (await conn.execute(_GET, _args(key))).fetchone()
            if row is None:
                raise StoreError(f"tool call {key.text} was never claimed: its outcome has "
                                 "no row")
            return row_to_record(key, tuple(row))

        record: ToolCallRecord = await self._run("commit a tool outcome", fn, pipelined=True)
        return record
