"""The PostgreSQL store's sub-agent registry (see `clawharness.store.subagents`)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Any

import psycopg

from clawharness.errors import ConditionalWriteConflict
from clawharness.store.subagents import (
    SUBAGENT_COLUMNS,
    TERMINAL_STATUSES,
    SubagentRecord,
    SubagentStatus,
    row_to_subagent,
)

__all__ = ["MIGRATION_V7", "MIGRATION_V8", "SubagentMethods"]

Conn = psycopg.AsyncConnection[Any]

#: v7: one row per child session a sessions_spawn started
MIGRATION_V7: tuple[str, ...] = (
    """CREATE TABLE IF NOT EXISTS subagents (
        child_key text COLLATE "C" PRIMARY KEY,
        parent_key text COLLATE "C" NOT NULL,
        run_id text NOT NULL,
        agent_id text NOT NULL,
        status text NOT NULL,
        depth integer NOT NULL,
        task text NOT NULL,
        label text,
        context text NOT NULL,
        runtime text,
        model_ref text,
        owner text,
        created_at double precision NOT NULL,
        heartbeat_at double precision NOT NULL,
        ended_at double precision,
        result text,
        error text,
        announced boolean NOT NULL DEFAULT false
    )""",
    "CREATE INDEX IF NOT EXISTS subagents_by_parent ON subagents (parent_key, created_at)",
)
#: v8: the HTTP API caller a child's turns count on (`SubagentRecord.caller`)
MIGRATION_V8: tuple[str, ...] = ("ALTER TABLE subagents ADD COLUMN IF NOT EXISTS caller text",)
_NOW = "extract(epoch FROM statement_timestamp())::float8"
_GET = f"SELECT {SUBAGENT_COLUMNS} FROM subagents WHERE child_key = %s"
_MARK = ("UPDATE subagents SET status = %s, result = coalesce(%s, result), "
         "error = coalesce(%s, error), "
         f"ended_at = CASE WHEN %s THEN coalesce(ended_at, {_NOW}) ELSE ended_at END, "
         f"heartbeat_at = {_NOW} "
         f"WHERE child_key = %s AND status = ANY(%s) RETURNING {SUBAGENT_COLUMNS}")
_BEAT = (f"UPDATE subagents SET heartbeat_at = {_NOW} WHERE child_key = ANY(%s) AND "
         "owner = %s AND status IN ('queued', 'running')")


class SubagentMethods:
    """The `Store` protocol's sub-agent registry methods, for `PostgresStore`."""

    if TYPE_CHECKING:
        async def _run(self, what: str, fn: Callable[[Conn], Awaitable[Any]], *,
                       tx: bool = True, pipelined: bool = False) -> Any: ...
        async def _one(self, what: str, query: str, args: Sequence[Any]) -> Any: ...
        async def _all(self, what: str, query: str, args: Sequence[Any]) -> list[Any]: ...

    async def register_subagent(self, record: SubagentRecord) -> None:
        marks = ", ".join(["%s"] * len(record.values()))

        async def fn(conn: Conn) -> None:
            try:
                await conn.execute(
                    f"INSERT INTO subagents ({SUBAGENT_COLUMNS}) VALUES ({marks})",
                    record.values())
            except psycopg.errors.UniqueViolation as exc:
                raise ConditionalWriteConflict(
                    f"sub-agent {record.child_key} is already registered") from exc

        await self._run("register a sub-agent", fn)

    async def mark_subagent(self, child_key: str, status: SubagentStatus, *,
                            when: Sequence[SubagentStatus], result: str | None = None,
                            error: str | None = None) -> SubagentRecord | None:
        row = await self._one("mark a sub-agent", _MARK, (
            status, result, error, status in TERMINAL_STATUSES, child_key, list(when)))
        return None if row is None else row_to_subagent(row)

    async def note_subagent_announced(self, child_key: str) -> None:
        await self._one("note a sub-agent's announcement",
                        "UPDATE subagents SET announced = true WHERE child_key = %s "
                        "RETURNING child_key", (child_key,))

    async def beat_subagents(self, owner: str,
                             child_keys: Sequence[str]) -> list[SubagentRecord]:
        keys = list(child_keys)

        async def fn(conn: Conn) -> list[SubagentRecord]:
            await conn.execute(_BEAT, (keys, owner))
            cur = await conn.execute(
                f"SELECT {SUBAGENT_COLUMNS} FROM subagents WHERE child_key = ANY(%s)", (keys,))
            return [row_to_subagent(r) for r in await cur.fetchall()]

        found: list[SubagentRecord] = await self._run("beat for sub-agents", fn)
        return found

    async def get_subagent(self, child_key: str) -> SubagentRecord | None:
        row = await self._one("read a sub-agent", _GET, (child_key,))
        return None if row is None else row_to_subagent(row)

    async def list_subagents(self, parent_key: str | None = None, *, active: bool = False,
                             limit: int = 500) -> list[SubagentRecord]:
        where, args = [], []
        if parent_key is not None:
            where.append("parent_key = %s")
            args.append(parent_key)
        if active:
            where.append("status IN ('queued', 'running')")
        clause = f"WHERE {' AND '.join(where)} " if where else ""
        rows = await self._all("list sub-agents",
                               f"SELECT {SUBAGENT_COLUMNS} FROM subagents {clause}"
                               "ORDER BY created_at, child_key LIMIT %s", (*args, limit))
        return [row_to_subagent(r) for r in rows]
