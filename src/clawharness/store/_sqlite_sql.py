"""SQL of the SQLite store: the schema, statements, plugin-state writes and search."""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Sequence
from typing import Any

from clawharness.store._sqlite_leases import check_fence
from clawharness.store._sqlite_writer import GroupFn, Writer
from clawharness.store.leases import SessionLease, lease_lost

SCHEMA_V1: tuple[str, ...] = (
    """CREATE TABLE sessions (
        key TEXT PRIMARY KEY,
        session_id TEXT NOT NULL,
        agent_id TEXT NOT NULL,
        model_ref TEXT,
        agent_harness_id TEXT,
        created_at REAL NOT NULL,
        updated_at REAL NOT NULL,
        meta TEXT NOT NULL DEFAULT '{}'
    )""",
    "CREATE INDEX sessions_by_updated ON sessions (updated_at DESC)",
    "CREATE INDEX sessions_by_agent ON sessions (agent_id, updated_at DESC)",
    # `id` is the rowid the FTS index links to; (session_id, seq) is the logical key.
    """CREATE TABLE transcript_entries (
        id INTEGER PRIMARY KEY,
        session_key TEXT NOT NULL,
        session_id TEXT NOT NULL,
        seq INTEGER NOT NULL,
        role TEXT NOT NULL CHECK (role <> ''),
        content TEXT NOT NULL,
        metadata TEXT NOT NULL DEFAULT '{}',
        idempotency_key TEXT,
        text TEXT,
        created_at REAL NOT NULL,
        UNIQUE (session_id, seq)
    )""",
    """CREATE UNIQUE INDEX transcript_by_idempotency_key
        ON transcript_entries (session_id, idempotency_key) WHERE idempotency_key IS NOT NULL""",
    "CREATE INDEX transcript_by_session_key ON transcript_entries (session_key)",
    # Contentless FTS5 over entry text, plus `skey`: the session key as one token, so a
    # session filter is an FTS AND. Prefix indexes of 2 and 3 characters: short prefixes
    # would otherwise expand to thousands of terms. The store maintains the index itself
    # (no triggers: a trigger writes FTS5 inside a statement savepoint, and FTS5 flushes
    # a new segment at every savepoint). Rows with id > indexed_upto are not indexed yet.
    """CREATE VIRTUAL TABLE transcript_fts USING fts5(
        text, skey, content='', prefix='2 3', tokenize='unicode61 remove_diacritics 2'
    )""",
    # merge index segments 8 at a time, not 4: a fifth less CPU per indexed row, and
    # searches at 1M entries stay within a few milliseconds
    "INSERT INTO transcript_fts (transcript_fts, rank) VALUES ('automerge', 8)",
    """CREATE TABLE search_index_state (
        singleton INTEGER PRIMARY KEY CHECK (singleton = 1),
        indexed_upto INTEGER NOT NULL
    )""",
    "INSERT INTO search_index_state (singleton, indexed_upto) VALUES (1, 0)",
    """CREATE TABLE plugin_state (
        namespace TEXT NOT NULL,
        key TEXT NOT NULL,
        value TEXT NOT NULL,
        generation INTEGER NOT NULL,
        lease_token TEXT,
        lease_expires_at REAL,
        PRIMARY KEY (namespace, key)
    ) WITHOUT ROWID""",
)

#: v2: the search index moves to its own file (`_sqlite_indexer`), entry ids are never
#: reused (AUTOINCREMENT: "indexed?" becomes "id <= indexed_upto"), deletions are recorded
#: for the indexer, and the store gets an id the search file is tied to
MIGRATION_V2: tuple[str, ...] = (
    """CREATE TABLE transcript_entries_v2 (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        session_key TEXT NOT NULL,
        session_id TEXT NOT NULL,
        seq INTEGER NOT NULL,
        role TEXT NOT NULL CHECK (role <> ''),
        content TEXT NOT NULL,
        metadata TEXT NOT NULL DEFAULT '{}',
        idempotency_key TEXT,
        text TEXT,
        created_at REAL NOT NULL,
        UNIQUE (session_id, seq)
    )""",
    "INSERT INTO transcript_entries_v2 SELECT * FROM transcript_entries ORDER BY id",
    "DROP TABLE transcript_entries",
    "ALTER TABLE transcript_entries_v2 RENAME TO transcript_entries",
    """CREATE UNIQUE INDEX transcript_by_idempotency_key
        ON transcript_entries (session_id, idempotency_key) WHERE idempotency_key IS NOT NULL""",
    "CREATE INDEX transcript_by_session_key ON transcript_entries (session_key)",
    "DROP TABLE transcript_fts",
    "DROP TABLE search_index_state",
    """CREATE TABLE search_deletions (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        entry_id INTEGER NOT NULL,
        text TEXT NOT NULL,
        skey TEXT NOT NULL
    )""",
    "CREATE TABLE store_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID",
    "INSERT INTO store_meta VALUES ('store_id', lower(hex(randomblob(16))))",
)

SESSION_COLS = (
    "key, session_id, agent_id, model_ref, agent_harness_id, created_at, updated_at, meta"
)
SELECT_SESSION = f"SELECT {SESSION_COLS} FROM sessions"
SELECT_SESSION_BY_KEY = f"{SELECT_SESSION} WHERE key = ?"
INSERT_SESSION = (
    f"INSERT INTO sessions ({SESSION_COLS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?) "
    "ON CONFLICT (key) DO NOTHING"
)
ENTRY_COLS = (
    "session_key, session_id, seq, role, content, metadata, idempotency_key, text, created_at"
)
INSERT_ENTRY = f"INSERT INTO transcript_entries ({ENTRY_COLS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"
#: with a key: a retry inserts nothing (rowcount 0) and the caller reads the stored row
INSERT_ENTRY_ONCE = INSERT_ENTRY + (
    " ON CONFLICT (session_id, idempotency_key) WHERE idempotency_key IS NOT NULL DO NOTHING"
)
MAX_SEQ = "SELECT max(seq) FROM transcript_entries WHERE session_id = ?"
#: (session_id, session_key) -> the session's lease row (token, fence; NULLs without one)
#: and its newest seq, in one read
FENCE_AND_MAX_SEQ = (
    "SELECT l.token, l.fence, (SELECT max(seq) FROM transcript_entries WHERE session_id = ?) "
    "FROM (SELECT 1) LEFT JOIN session_leases l ON l.session_key = ?"
)
#: [session_key, ...] as JSON -> each one's lease row (token, fence; NULLs without one),
#: in that order
FENCES_MANY = (
    "SELECT l.token, l.fence FROM json_each(?) j "
    "LEFT JOIN session_leases l ON l.session_key = j.value ORDER BY j.key"
)
#: an append's own rows taken back in its transaction (a retry among them)
DROP_AFTER = "DELETE FROM transcript_entries WHERE session_id = ? AND seq > ?"
#: an append is the session's latest activity (only while that physical session is current;
#: `max` keeps the time from going back when clocks of two processes disagree)
TOUCH_SESSION = (
    "UPDATE sessions SET updated_at = max(updated_at, ?) WHERE key = ? AND session_id = ?"
)
#: [session_id, ...] as JSON -> (session_id, max seq): one index seek each
MAX_SEQ_MANY = (
    "SELECT value, (SELECT max(seq) FROM transcript_entries WHERE session_id = value) "
    "FROM json_each(?)"
)
#: what reads fetch (the caller knows the session_id; every column costs on this path)
READ_COLS = "session_key, seq, role, content, metadata, idempotency_key, text, created_at"
SELECT_BY_IDEM = (
    f"SELECT {READ_COLS} FROM transcript_entries WHERE session_id = ? AND idempotency_key = ?"
)
#: [[session_id, key], ...] as JSON -> session_id + READ_COLS of rows already stored
SELECT_BY_IDEM_MANY = (
    "SELECT t.session_id, " + ", ".join(f"t.{c.strip()}" for c in READ_COLS.split(",")) +
    " FROM json_each(?) j JOIN transcript_entries t "
    "ON t.session_id = json_extract(j.value, '$[0]') "
    "AND t.idempotency_key = json_extract(j.value, '$[1]')"
)
READ_LAST = (
    f"SELECT {READ_COLS} FROM transcript_entries WHERE session_id = ? AND seq > ? "
    "ORDER BY seq DESC LIMIT ?"
)
READ_ALL = (
    f"SELECT {READ_COLS} FROM transcript_entries WHERE session_id = ? AND seq > ? ORDER BY seq"
)

_STATE_COLS = "namespace, key, value, generation, lease_token, lease_expires_at"
_STATE_GET = f"SELECT {_STATE_COLS} FROM plugin_state WHERE namespace = ? AND key = ?"
#: namespace, low, limit (-1: all); and with the range's end, namespace, low, high, limit
_STATE_FROM = (f"SELECT {_STATE_COLS} FROM plugin_state WHERE namespace = ? AND key >= ? "
               "ORDER BY key LIMIT ?")
_STATE_RANGE = (f"SELECT {_STATE_COLS} FROM plugin_state WHERE namespace = ? AND key >= ? "
                "AND key < ? ORDER BY key LIMIT ?")
_STATE_INSERT = (f"INSERT INTO plugin_state ({_STATE_COLS}) VALUES (?, ?, ?, 1, ?, ?) "
                 f"ON CONFLICT (namespace, key) DO NOTHING RETURNING {_STATE_COLS}")
_STATE_UPDATE = ("UPDATE plugin_state SET value = ?, generation = generation + 1, "
                 "lease_token = ?, lease_expires_at = ? "
                 "WHERE namespace = ? AND key = ? AND generation = ? "
                 f"RETURNING {_STATE_COLS}")
_STATE_DELETE = "DELETE FROM plugin_state WHERE namespace = ? AND key = ? AND generation = ?"
Row = Sequence[Any]


def state_get(conn: sqlite3.Connection, namespace: str, key: str) -> Row | None:
    """One plugin-state row."""
    row: Row | None = conn.execute(_STATE_GET, (namespace, key)).fetchone()
    return row


DATA_VERSION = "PRAGMA data_version"
_STATE_ANY = "SELECT EXISTS (SELECT 1 FROM plugin_state WHERE namespace = ?)"


def state_any(conn: sqlite3.Connection, namespace: str) -> bool:
    """Has `namespace` any rows?"""
    return bool(conn.execute(_STATE_ANY, (namespace,)).fetchone()[0])


def state_list(conn: sqlite3.Connection, namespace: str, low: str, high: str | None,
               limit: int = -1) -> list[Row]:
    """Rows with low <= key < high, in key order; the first `limit` (-1: all)."""
    if high is None:
        return conn.execute(_STATE_FROM, (namespace, low, limit)).fetchall()
    return conn.execute(_STATE_RANGE, (namespace, low, high, limit)).fetchall()


def state_insert(conn: sqlite3.Connection, namespace: str, key: str, value: str,
                 token: str | None, expires: float | None) -> Row | None:
    """Insert at generation 1 unless the key exists (one statement)."""
    row: Row | None = conn.execute(
        _STATE_INSERT, (namespace, key, value, token, expires)).fetchone()
    return row


def state_update(conn: sqlite3.Connection, namespace: str, key: str, generation: int,
                 value: str, token: str | None, expires: float | None) -> Row | None:
    """Replace value and lease if the generation still matches (one statement)."""
    row: Row | None = conn.execute(
        _STATE_UPDATE, (value, token, expires, namespace, key, generation)).fetchone()
    return row


def state_delete(conn: sqlite3.Connection, namespace: str, key: str, generation: int) -> bool:
    """Delete if the generation still matches (one statement)."""
    return conn.execute(_STATE_DELETE, (namespace, key, generation)).rowcount > 0


STORE_ID = "SELECT value FROM store_meta WHERE key = 'store_id'"
#: the search file's bookkeeping, as the store connections see it (attached as `s`)
SEARCH_CURRENT = (
    "SELECT (SELECT coalesce(max(id), 0) FROM transcript_entries) <= s.indexed_upto "
    "AND (SELECT coalesce(max(seq), 0) FROM search_deletions) <= s.deletions_upto "
    "FROM s.search_state s"
)


def prune_deletions(conn: sqlite3.Connection, applied: int) -> None:
    """Forget the text of deleted entries the search index has let go of."""
    conn.execute("DELETE FROM search_deletions WHERE seq <= ?", (applied,))


def delete_entries(conn: sqlite3.Connection, where: str, args: tuple[Any, ...]) -> int:
    """Delete transcript rows matching `where`, recording their text for the indexer
    (which drops it from the index, and then the store forgets it)."""
    conn.execute(
        "INSERT INTO search_deletions (entry_id, text, skey) "
        "SELECT id, text, 'k' || hex(session_key) FROM transcript_entries "
        f"WHERE ({where}) AND text IS NOT NULL", args)
    return int(conn.execute(f"DELETE FROM transcript_entries WHERE {where}", args).rowcount)


def append_rows(conn: sqlite3.Connection, seqs: dict[str, int], session_key: str,
                session_id: str, rows: Sequence[tuple[Any, str, str]],
                fence: SessionLease | None, *, now: float | None = None,
                touch: bool = True) -> tuple[float, list[Any]]:
    """One `append_entries` request inside a write transaction: (the time stored, per
    row its new seq or the stored row its idempotency key already names). `seqs` caches
    each session's highest seq for the connection it is used with.

    A warm append is one read (the lease row and the newest seq together), one
    `executemany` of the rows, and the session's touch. A row whose idempotency key is
    stored already (a retry) makes it take back what it inserted and go a row at a time.
    `touch=False`: the caller set the session's `updated_at` itself (a row it just made)."""
    seq = seqs.get(session_id)
    if fence is None:
        if seq is None:
            seq = conn.execute(MAX_SEQ, (session_id,)).fetchone()[0] or 0
    elif seq is None:
        token, number, top = conn.execute(FENCE_AND_MAX_SEQ, (session_id, session_key)).fetchone()
        _check_fence_row(fence, session_key, token, number)
        seq = top or 0
    else:
        check_fence(conn, session_key, fence, "append")
    if now is None:
        now = time.time()
    base = seq
    values = [(session_key, session_id, base + i, e.role, content, meta, e.idempotency_key,
               e.text, now) for i, (e, content, meta) in enumerate(rows, 1)]
    keyed = any(v[6] is not None for v in values)
    inserted = conn.executemany(INSERT_ENTRY_ONCE if keyed else INSERT_ENTRY, values).rowcount
    if inserted == len(values):
        marks: list[Any] = list(range(base + 1, base + len(values) + 1))
        seq = base + len(values)
    else:  # a retry among them: take the batch back and go a row at a time
        conn.execute(DROP_AFTER, (session_id, base))
        marks = []
        for e, content, meta in rows:
            seq += 1
            key = e.idempotency_key
            args = (session_key, session_id, seq, e.role, content, meta, key, e.text, now)
            if key is None:
                conn.execute(INSERT_ENTRY, args)
            elif conn.execute(INSERT_ENTRY_ONCE, args).rowcount == 0:
                seq -= 1  # a retry: hand back what is stored under the key
                marks.append(conn.execute(SELECT_BY_IDEM, (session_id, key)).fetchone())
                continue
            marks.append(seq)
    seqs[session_id] = seq
    if touch and seq > base:
        conn.execute(TOUCH_SESSION, (now, session_key, session_id))
    return now, marks


def _check_fence_row(fence: SessionLease, session_key: str, token: str | None,
                     number: int | None) -> None:
    error = lease_lost(fence, session_key, None if number is None else (token, number),
                       "append")
    if error is not None:
        raise error


def make_append_group(writer: Writer) -> GroupFn:
    """Do many `append_entries` requests at once, with the results their own `fn`s give.

    Payloads are (session_key, session_id, [(entry, content JSON, metadata JSON)], fence).
    Runs in the writer thread inside its transaction (so nobody else writes meanwhile).
    A fence that is no longer current fails the group before it writes anything, and
    then each append runs (and fails) on its own.
    """
    seqs = writer.seqs

    def group(conn: sqlite3.Connection, payloads: list[Any]) -> list[Any]:
        fenced = [(skey, fence) for skey, _, _, fence in payloads if fence is not None]
        if fenced:  # every lease row in one read
            leases = conn.execute(FENCES_MANY, (json.dumps([k for k, _ in fenced]),))
            for (skey, fence), (token, number) in zip(fenced, leases, strict=True):
                _check_fence_row(fence, skey, token, number)
        now = time.time()
        keyed = [[sid, e.idempotency_key] for _, sid, rows, _ in payloads
                 for e, _, _ in rows if e.idempotency_key is not None]
        stored: dict[tuple[str, str], Any] = {}
        if keyed:
            for row in conn.execute(SELECT_BY_IDEM_MANY, (json.dumps(keyed),)):
                stored[(row[0], row[6])] = row[1:]
        fresh = list({sid for _, sid, _, _ in payloads if sid not in seqs})
        if fresh:
            for sid, top in conn.execute(MAX_SEQ_MANY, (json.dumps(fresh),)):
                seqs[sid] = top or 0
        values: list[tuple[Any, ...]] = []
        results: list[Any] = []
        for skey, sid, rows, _ in payloads:
            seq = seqs[sid]
            marks: list[Any] = []
            for e, content, meta in rows:
                key = e.idempotency_key
                if key is not None and (hit := stored.get((sid, key))) is not None:
                    marks.append(hit)
                    continue
                seq += 1
                values.append((skey, sid, seq, e.role, content, meta, key, e.text, now))
                if key is not None:  # a repeat later in this group gets this row
                    stored[(sid, key)] = (skey, seq, e.role, content, meta, key, e.text, now)
                marks.append(seq)
            seqs[sid] = seq
            results.append((now, marks))
        conn.executemany(INSERT_ENTRY, values)
        touched = dict.fromkeys((v[0], v[1]) for v in values)
        conn.executemany(TOUCH_SESSION, [(now, skey, sid) for skey, sid in touched])
        writer.unindexed += len(values)
        return results

    return group
