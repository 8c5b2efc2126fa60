"""Full-text search of the SQLite store: safe FTS5 expressions and a bounded ranking."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

from clawharness.store.records import SearchHit
from clawharness.store.search_query import SearchTerm


def _phrase(term: SearchTerm) -> str:
    # words hold only letters and digits (parse_search_query), so quoting is safe
    return '"' + " ".join(term.words) + '"' + ("*" if term.prefix else "")


def text_expr(terms: Sequence[SearchTerm]) -> str:
    """An FTS5 expression: every term (AND), matched in the `text` column only."""
    return "text : (" + " ".join(_phrase(t) for t in terms) + ")"


def session_token(session_key: str) -> str:
    """The FTS token of a session key; the indexer computes it as 'k' || hex(session_key)."""
    return "k" + session_key.encode("utf-8").hex().upper()


#: the index lives in the search file, attached to every reading connection as `s`
_MATCH = "SELECT rowid FROM s.transcript_fts WHERE transcript_fts MATCH ? ORDER BY rowid DESC"
#: the matched rows a search may show: not those of a physical session its key has left
#: behind (a reset keeps them stored, unsearchable; the index need not know)
_CURRENT_ROWS = (
    "SELECT t.id, t.session_key, t.session_id, t.seq, t.role, t.text "
    "FROM transcript_entries t WHERE t.id IN ({marks}) AND NOT EXISTS ("
    "SELECT 1 FROM sessions WHERE sessions.key = t.session_key "
    "AND sessions.session_id <> t.session_id)"
)


class SearchPlan:
    """One search: newest matches first, then BM25 over a bounded window of them.

    FTS5's bm25() reads the whole posting list of every phrase once per query to weigh
    it (IDF), which is what makes a very common term slow. So: (1) take the newest
    `window` matching rowids (cheap, FTS5 walks rowids backwards and stops); (2) a term
    found in at least `common_df` entries is "very common" (one bounded OFFSET probe);
    (3) BM25 is computed for the window with only the other terms, whose posting lists
    are short. A query of only very common terms is ranked newest first. (4) The hits
    are read best first, leaving out rows of a physical session their key has replaced.
    """

    def __init__(self, terms: Sequence[SearchTerm], session_key: str | None, limit: int,
                 window: int, common_df: int):
        self.terms = list(terms)
        self.session_key = session_key
        self.limit = limit
        self.window = max(window, limit)
        self.common_df = common_df

    def _is_common(self, conn: sqlite3.Connection, term: SearchTerm) -> bool:
        probe = conn.execute(f"{_MATCH} LIMIT 1 OFFSET ?", (text_expr([term]), self.common_df - 1))
        return probe.fetchone() is not None

    def run(self, conn: sqlite3.Connection) -> list[SearchHit]:
        """Run in one read transaction so every step sees the same snapshot."""
        conn.execute("BEGIN")
        try:
            return self._run(conn)
        finally:
            conn.execute("COMMIT")

    def _run(self, conn: sqlite3.Connection) -> list[SearchHit]:
        expr = text_expr(self.terms)
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
            sql = ("SELECT rowid, bm25(transcript_fts, 1.0, 0.0) FROM s.transcript_fts "
                   "WHERE transcript_fts MATCH ? AND rowid >= ?")
            inside = set(window)
            for rowid, bm25 in conn.execute(sql, (text_expr(rare), window[-1])):
                if rowid in inside:
                    scores[rowid] = -bm25
        ranked = sorted(window, key=lambda r: (-scores.get(r, 0.0), -r))
        hits: list[SearchHit] = []
        # best first, a slice at a time: the first slice is usually all that is read
        size, start = self.limit, 0
        while start < len(ranked) and len(hits) < self.limit:
            part = ranked[start:start + size]
            start += size
            size = min(size * 4, 500)
            sql = _CURRENT_ROWS.format(marks=",".join("?" * len(part)))
            rows = {r[0]: r for r in conn.execute(sql, part)}
            hits.extend(
                SearchHit(r[1], r[2], r[3], r[4], r[5] or "", scores.get(rowid, 0.0))
                for rowid in part if (r := rows.get(rowid)) is not None)
        return hits[: self.limit]
