"""Helpers shared by the store tests (PostgreSQL location and schema housekeeping)."""

from __future__ import annotations

import os
import uuid
from collections.abc import Awaitable, Callable

import psycopg

from clawharness.store import Store

PG_URL = os.environ.get("CLAWHARNESS_TEST_PG_URL", "postgresql://postgres@127.0.0.1:5432/test")
RUN_ID = uuid.uuid4().hex[:8]
#: the `make_store` fixture: a new open store of the test's backend per call
StoreFactory = Callable[[], Awaitable[Store]]

_pg_unavailable: list[str | None] = []


def pg_unavailable() -> str | None:
    """Why PostgreSQL cannot be used here, or None."""
    if not _pg_unavailable:
        try:
            with psycopg.connect(PG_URL, connect_timeout=3) as conn:
                conn.execute("SELECT 1")
            _pg_unavailable.append(None)
        except psycopg.Error as exc:
            _pg_unavailable.append(f"no PostgreSQL at {PG_URL}: {exc}")
    return _pg_unavailable[0]


def new_schema_name() -> str:
    """A schema name unique to this test run and call."""
    return f"ch_test_{RUN_ID}_{uuid.uuid4().hex[:8]}"


DROP_LOCK_TIMEOUT = "30s"


def drop_schema(schema: str) -> None:
    """Drop a test schema and everything in it.

    A connection still open in the schema (a host a test left open, idle in a
    transaction) would make the drop wait for ever and hang the suite; the drop gives up
    after `DROP_LOCK_TIMEOUT` instead, failing the test that left it open."""
    with psycopg.connect(PG_URL, autocommit=True) as conn:
        conn.execute(f"SET lock_timeout = '{DROP_LOCK_TIMEOUT}'")
        try:
            conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
        except psycopg.errors.LockNotAvailable as exc:
            raise AssertionError(
                f"schema {schema} is still in use by an open connection (a host or "
                f"store left open?): {exc}") from exc
