"""SQL of the SQLite store: the schema, statements, plugin-state writes and search."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from typing import Any

from clawharness.store.base import SearchHit, SearchTerm

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

SESSION_COLS = (
    "key, session_id, agent_id, model_ref, agent_harness_id, created_at, updated_at, meta"
)
SELECT_SESSION = f"SELECT {SESSION_COLS} FROM sessions"
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
INSERT_FTS = "INSERT INTO transcript_fts (rowid, text, skey) VALUES (?, ?, ?)"
DELETE_FTS = (
    "INSERT INTO transcript_fts (transcript_fts, rowid, text, skey) VALUES ('delete', ?, ?, ?)"
)
MAX_SEQ = "SELECT max(seq) FROM transcript_entries WHERE session_id = ?"
#: what reads fetch (the caller knows the session_id; every column costs on this path)
READ_COLS = "session_key, seq, role, content, metadata, idempotency_key, text, created_at"
SELECT_BY_IDEM = (
    f"SELECT {READ_COLS} FROM transcript_entries WHERE session_id = ? AND idempotency_key = ?"
)
READ_LAST = (
    f"SELECT {READ_COLS} FROM transcript_entries WHERE session_id = ? AND seq > ? "
    "ORDER BY seq DESC LIMIT ?"
)
READ_ALL = (
    f"SELECT {READ_COLS} FROM transcript_entries WHERE session_id = ? AND seq > ? ORDER BY seq"
)

_STATE_COLS = "namespace, key, value, generation, lease_token, lease_expires_at"
Row = Sequence[Any]


def state_get(conn: sqlite3.Connection, namespace: str, key: str) -> Row | None:
    """One plugin-state row."""
    sql = f"SELECT {_STATE_COLS} FROM plugin_state WHERE namespace = ? AND key = ?"
    row: Row | None = conn.execute(sql, (namespace, key)).fetchone()
    return row


def state_list(conn: sqlite3.Connection, namespace: str, low: str, high: str | None) -> list[Row]:
    """Rows with low <= key < high, in key order."""
    sql = f"SELECT {_STATE_COLS} FROM plugin_state WHERE namespace = ? AND key >= ?"
    args: tuple[Any, ...] = (namespace, low)
    if high is not None:
        sql += " AND key < ?"
        args += (high,)
    return conn.execute(sql + " ORDER BY key", args).fetchall()


def state_insert(conn: sqlite3.Connection, namespace: str, key: str, value: str,
                 token: str | None, expires: float | None) -> Row | None:
    """Insert at generation 1 unless the key exists (one statement)."""
    sql = (f"INSERT INTO plugin_state ({_STATE_COLS}) VALUES (?, ?, ?, 1, ?, ?) "
           f"ON CONFLICT (namespace, key) DO NOTHING RETURNING {_STATE_COLS}")
    row: Row | None = conn.execute(sql, (namespace, key, value, token, expires)).fetchone()
    return row


def state_update(conn: sqlite3.Connection, namespace: str, key: str, generation: int,
                 value: str, token: str | None, expires: float | None) -> Row | None:
    """Replace value and lease if the generation still matches (one statement)."""
    sql = ("UPDATE plugin_state SET value = ?, generation = generation + 1, lease_token = ?, "
           "lease_expires_at = ? WHERE namespace = ? AND key = ? AND generation = ? "
           f"RETURNING {_STATE_COLS}")
    row: Row | None = conn.execute(
        sql, (value, token, expires, namespace, key, generation)).fetchone()
    return row


def state_delete(conn: sqlite3.Connection, namespace: str, key: str, generation: int) -> bool:
    """Delete if the generation still matches (one statement)."""
    sql = "DELETE FROM plugin_state WHERE namespace = ? AND key = ? AND generation = ?"
    return conn.execute(sql, (namespace, key, generation)).rowcount > 0


_UPTO = "SELECT indexed_upto FROM search_index_state"
_SET_UPTO = "UPDATE search_index_state SET indexed_upto = ?"
_MAX_ID = "SELECT coalesce(max(id), 0) FROM transcript_entries"
#: true when some appended row is not in the search index yet
NEEDS_INDEXING = f"SELECT ({_MAX_ID}) > ({_UPTO})"


def index_pending(conn: sqlite3.Connection, limit: int) -> int:
    """Index up to `limit` not-yet-indexed rows, oldest first; returns how many it took."""
    upto = conn.execute(_UPTO).fetchone()[0]
    rows = conn.execute("SELECT id, text, session_key FROM transcript_entries WHERE id > ? "
                        "ORDER BY id LIMIT ?", (upto, limit)).fetchall()
    if rows:
        conn.executemany(INSERT_FTS, [(i, t, session_token(k)) for i, t, k in rows
                                      if t is not None])
        conn.execute(_SET_UPTO, (rows[-1][0],))
    return len(rows)


def index_all(conn: sqlite3.Connection) -> None:
    """Index every pending row (the search barrier)."""
    while index_pending(conn, 5000):
        pass


def delete_entries(conn: sqlite3.Connection, where: str, args: tuple[Any, ...]) -> int:
    """Delete transcript rows matching `where`, and their search index entries."""
    upto = conn.execute(_UPTO).fetchone()[0]
    indexed = conn.execute(
        f"SELECT id, text, session_key FROM transcript_entries WHERE ({where}) "
        "AND id <= ? AND text IS NOT NULL", (*args, upto)).fetchall()
    conn.executemany(DELETE_FTS, [(i, t, session_token(k)) for i, t, k in indexed])
    count = int(conn.execute(f"DELETE FROM transcript_entries WHERE {where}", args).rowcount)
    top = conn.execute(_MAX_ID).fetchone()[0]
    if top < upto:  # sqlite reuses the ids of deleted newest rows: keep those unindexed
        conn.execute(_SET_UPTO, (top,))
    return count


def _phrase(term: SearchTerm) -> str:
    # words hold only letters and digits (parse_search_query), so quoting is safe
    return '"' + " ".join(term.words) + '"' + ("*" if term.prefix else "")


def _text_expr(terms: Sequence[SearchTerm]) -> str:
    return "text : (" + " ".join(_phrase(t) for t in terms) + ")"


def session_token(session_key: str) -> str:
    """The FTS token of a session key, as the `skey` generated column computes it."""
    return "k" + session_key.encode("utf-8").hex().upper()


_MATCH = "SELECT rowid FROM transcript_fts WHERE transcript_fts MATCH ? ORDER BY rowid DESC"


class SearchPlan:
    """One search: newest matches first, then BM25 over a bounded window of them.

    FTS5's bm25() reads the whole posting list of every phrase once per query to weigh
    it (IDF), which is what makes a very common term slow. So: (1) take the newest
    `window` matching rowids (cheap, FTS5 walks rowids backwards and stops); (2) a term
    found in at least `common_df` entries is "very common" (one bounded OFFSET probe);
    (3) BM25 is computed for the window with only the other terms, whose posting lists
    are short. A query of only very common terms is ranked newest first.
    """

    def __init__(self, terms: Sequence[SearchTerm], session_key: str | None, limit: int,
                 window: int, common_df: int):
        self.terms = list(terms)
        self.session_key = session_key
        self.limit = limit
        self.window = max(window, limit)
        self.common_df = common_df

    def _is_common(self, conn: sqlite3.Connection, term: SearchTerm) -> bool:
        probe = conn.execute(f"{_MATCH} LIMIT 1 OFFSET ?", (_text_expr([term]), self.common_df - 1))
        return probe.fetchone() is not None

    def run(self, conn: sqlite3.Connection) -> list[SearchHit]:
        """Run in one read transaction so every step sees the same snapshot."""
        conn.execute("BEGIN")
        try:
            return self._run(conn)
        finally:
            conn.execute("COMMIT")

    def _run(self, conn: sqlite3.Connection) -> list[SearchHit]:
        expr = _text_expr(self.terms)
        if self.session_key is not None:
            expr += f' AND skey : "{session_token(self.session_key)}"'
        window = [r[0] for r in conn.execute(f"{_MATCH} LIMIT ?", (expr, self.window))]
        if not window:
            return []
        scores: dict[int, float] = {}
        rare = [t for t in self.terms if not self._is_common(conn, t)]
        if rare:
            # rows matching the rare terms at or after the window's oldest rowid: a
            # superset of the window, small because the terms are rare
            sql = ("SELECT rowid, bm25(transcript_fts, 1.0, 0.0) FROM transcript_fts "
                   "WHERE transcript_fts MATCH ? AND rowid >= ?")
            inside = set(window)
            for rowid, bm25 in conn.execute(sql, (_text_expr(rare), window[-1])):
                if rowid in inside:
                    scores[rowid] = -bm25
        best = sorted(window, key=lambda r: (-scores.get(r, 0.0), -r))[: self.limit]
        marks = ",".join("?" * len(best))
        sql = ("SELECT id, session_key, session_id, seq, role, text FROM transcript_entries "
               f"WHERE id IN ({marks})")
        rows = {r[0]: r for r in conn.execute(sql, best)}
        return [
            SearchHit(r[1], r[2], r[3], r[4], r[5] or "", scores.get(rowid, 0.0))
            for rowid in best if (r := rows.get(rowid)) is not None
        ]
