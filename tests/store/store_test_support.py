"""Helpers shared by the store tests (PostgreSQL location and schema housekeeping)."""

from __future__ import annotations

import os
import uuid

import psycopg

PG_URL = os.environ.get("CLAWHARNESS_TEST_PG_URL", "postgresql://postgres@127.0.0.1:5432/test")
RUN_ID = uuid.uuid4().hex[:8]

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


def drop_schema(schema: str) -> None:
    """Drop a test schema and everything in it."""
    with psycopg.connect(PG_URL, autocommit=True) as conn:
        conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
