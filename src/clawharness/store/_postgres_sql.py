"""SQL of the PostgreSQL store: schema, statements and the tsquery builder."""

from __future__ import annotations

from collections.abc import Sequence

from clawharness.store.search_query import SearchTerm

#: pg_advisory_xact_lock(bigint) key taken while creating or migrating the schema
MIGRATE_LOCK = 0x636C61775F6D6967
#: first key of pg_advisory_xact_lock(int, int) for per-session seq allocation
SEQ_LOCK_SPACE = 0x636C6177

VERSION_TABLE = """CREATE TABLE IF NOT EXISTS schema_version (
    singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
    version integer NOT NULL
)"""
SET_VERSION = (
    "INSERT INTO schema_version (singleton, version) VALUES (true, %s) "
    "ON CONFLICT (singleton) DO UPDATE SET version = excluded.version"
)

# JSON columns are `json`, not `jsonb`: stored verbatim, and `json` accepts "\u0000",
# which tool output does contain and `jsonb` refuses. Keys sort in "C" (code point)
# order, as in SQLite.
SCHEMA_V1: tuple[str, ...] = (
    """CREATE TABLE sessions (
        key text COLLATE "C" PRIMARY KEY,
        session_id text NOT NULL,
        agent_id text NOT NULL,
        model_ref text,
        agent_harness_id text,
        created_at double precision NOT NULL,
        updated_at double precision NOT NULL,
        meta json NOT NULL DEFAULT '{}'
    )""",
    "CREATE INDEX sessions_by_updated ON sessions (updated_at DESC)",
    "CREATE INDEX sessions_by_agent ON sessions (agent_id, updated_at DESC)",
    """CREATE TABLE transcript_entries (
        session_key text NOT NULL,
        session_id text NOT NULL,
        seq bigint NOT NULL,
        id bigint GENERATED ALWAYS AS IDENTITY,
        role text NOT NULL CHECK (role <> ''),
        content json NOT NULL,
        metadata json NOT NULL DEFAULT '{}',
        idempotency_key text,
        text text,
        created_at double precision NOT NULL,
        tsv tsvector GENERATED ALWAYS AS (to_tsvector('simple', coalesce(text, ''))) STORED,
        PRIMARY KEY (session_id, seq)
    )""",
    "CREATE UNIQUE INDEX transcript_by_id ON transcript_entries (id)",
    """CREATE UNIQUE INDEX transcript_by_idempotency_key
        ON transcript_entries (session_id, idempotency_key) WHERE idempotency_key IS NOT NULL""",
    "CREATE INDEX transcript_by_session_key ON transcript_entries (session_key)",
    "CREATE INDEX transcript_search ON transcript_entries USING gin (tsv)",
    """CREATE TABLE plugin_state (
        namespace text COLLATE "C" NOT NULL,
        key text COLLATE "C" NOT NULL,
        value json NOT NULL,
        generation bigint NOT NULL,
        lease_token text,
        lease_expires_at double precision,
        PRIMARY KEY (namespace, key)
    )""",
)

SESSION_COLS = (
    "key, session_id, agent_id, model_ref, agent_harness_id, created_at, updated_at, meta"
)
SELECT_SESSION = f"SELECT {SESSION_COLS} FROM sessions"
INSERT_SESSION = (
    f"INSERT INTO sessions ({SESSION_COLS}) VALUES (%s, %s, %s, %s, %s, %s, %s, %s::json) "
    "ON CONFLICT (key) DO NOTHING RETURNING key"
)

ENTRY_COLS = (
    "session_key, session_id, seq, role, content, metadata, idempotency_key, text, created_at"
)
SEQ_LOCK = "SELECT pg_advisory_xact_lock(%s, hashtext(%s))"
READ_LAST = (
    f"SELECT {ENTRY_COLS} FROM transcript_entries WHERE session_id = %s AND seq > %s "
    "ORDER BY seq DESC LIMIT %s"
)
READ_ALL = (
    f"SELECT {ENTRY_COLS} FROM transcript_entries WHERE session_id = %s AND seq > %s "
    "ORDER BY seq"
)

# newest `window` matches first, then ts_rank over only those (`{where}`: session filter),
# leaving out rows of a physical session their key has replaced (a reset keeps them
# stored, unsearchable)
SEARCH = """WITH m AS (
    SELECT e.id, e.session_key, e.session_id, e.seq, e.role, e.text, e.tsv
    FROM transcript_entries e
    WHERE e.tsv @@ to_tsquery('simple', %(q)s){where}
    ORDER BY e.id DESC LIMIT %(window)s
)
SELECT m.session_key, m.session_id, m.seq, m.role, m.text,
       ts_rank(m.tsv, to_tsquery('simple', %(q)s)) AS score
FROM m
WHERE NOT EXISTS (SELECT 1 FROM sessions s
                  WHERE s.key = m.session_key AND s.session_id <> m.session_id)
ORDER BY score DESC, m.id DESC LIMIT %(limit)s"""

_STATE_COLS = "namespace, key, value, generation, lease_token, lease_expires_at"
STATE_GET = f"SELECT {_STATE_COLS} FROM plugin_state WHERE namespace = %s AND key = %s"
STATE_LIST = (
    f"SELECT {_STATE_COLS} FROM plugin_state WHERE namespace = %s AND starts_with(key, %s) "
    "ORDER BY key"
)
STATE_INSERT = (
    f"INSERT INTO plugin_state ({_STATE_COLS}) VALUES (%s, %s, %s::json, 1, %s, %s) "
    f"ON CONFLICT (namespace, key) DO NOTHING RETURNING {_STATE_COLS}"
)
STATE_UPDATE = (
    "UPDATE plugin_state SET value = %s::json, generation = generation + 1, "
    "lease_token = %s, lease_expires_at = %s "
    f"WHERE namespace = %s AND key = %s AND generation = %s RETURNING {_STATE_COLS}"
)
STATE_DELETE = (
    "DELETE FROM plugin_state WHERE namespace = %s AND key = %s AND generation = %s RETURNING 1"
)


def tsquery(terms: Sequence[SearchTerm]) -> str:
    """`to_tsquery` text for parsed terms: AND of phrases, `:*` on a prefix's last word."""
    parts = []
    for term in terms:
        words = ["'" + w.replace("\\", "\\\\").replace("'", "''") + "'" for w in term.words]
        if term.prefix:
            words[-1] += ":*"
        parts.append("(" + " <-> ".join(words) + ")")
    return " & ".join(parts)


#: v5: a transcript append in one statement. The function takes the session's seq lock
#: before it reads the newest seq: each statement of a plpgsql function sees a fresh
#: snapshot, which one plain SQL statement (its snapshot taken before the lock) would not.
#: Rows come back per input ordinal (`r_ord`, from 1): stored now (`r_appended`), or the
#: row an idempotency key already had. A writer lease that is not the caller's (`p_token`
#: given) writes nothing and returns one row, `r_ord` 0, with what the lease row holds.
MIGRATION_V5: tuple[str, ...] = (
    f"""CREATE OR REPLACE FUNCTION clawharness_append_entries(
        p_session_key text, p_session_id text, p_check_fence boolean, p_token text,
        p_roles text[], p_contents text[], p_metadata text[], p_keys text[], p_texts text[],
        p_now double precision)
    RETURNS TABLE (r_ord integer, r_appended boolean, r_seq bigint, r_role text,
                   r_content json, r_metadata json, r_key text, r_text text,
                   r_created double precision, r_lease_found boolean, r_lease_token text,
                   r_lease_fence bigint)
    LANGUAGE plpgsql VOLATILE AS $fn$
    DECLARE
        v_token text;
        v_fence bigint;
        v_seq bigint;
        v_added boolean := false;
    BEGIN
        IF p_check_fence THEN
            SELECT l.token, l.fence INTO v_token, v_fence FROM session_leases l
                WHERE l.session_key = p_session_key FOR SHARE;
            IF NOT FOUND OR v_token IS DISTINCT FROM p_token THEN
                RETURN QUERY SELECT 0, false, NULL::bigint, NULL::text, NULL::json,
                    NULL::json, NULL::text, NULL::text, NULL::double precision, FOUND,
                    v_token, v_fence;
                RETURN;
            END IF;
        END IF;
        PERFORM pg_advisory_xact_lock({SEQ_LOCK_SPACE}, hashtext(p_session_id));
        SELECT coalesce(max(e.seq), 0) INTO v_seq FROM transcript_entries e
            WHERE e.session_id = p_session_id;
        FOR i IN 1 .. coalesce(array_length(p_roles, 1), 0) LOOP
            IF p_keys[i] IS NOT NULL THEN
                RETURN QUERY SELECT i, false, e.seq, e.role, e.content, e.metadata,
                    e.idempotency_key, e.text, e.created_at, NULL::boolean, NULL::text,
                    NULL::bigint
                    FROM transcript_entries e
                    WHERE e.session_id = p_session_id AND e.idempotency_key = p_keys[i];
                IF FOUND THEN
                    CONTINUE;
                END IF;
            END IF;
            v_seq := v_seq + 1;
            INSERT INTO transcript_entries ({ENTRY_COLS})
                VALUES (p_session_key, p_session_id, v_seq, p_roles[i], p_contents[i]::json,
                        p_metadata[i]::json, p_keys[i], p_texts[i], p_now);
            v_added := true;
            RETURN QUERY SELECT i, true, v_seq, NULL::text, NULL::json, NULL::json,
                NULL::text, NULL::text, p_now, NULL::boolean, NULL::text, NULL::bigint;
        END LOOP;
        IF v_added THEN  -- the session's latest activity; `greatest`: hosts' clocks differ
            UPDATE sessions s SET updated_at = greatest(s.updated_at, p_now)
                WHERE s.key = p_session_key AND s.session_id = p_session_id;
        END IF;
    END
    $fn$""",
)
APPEND_ENTRIES = (
    "SELECT * FROM clawharness_append_entries(%s, %s, %s, %s, %s, %s, %s, %s, %s, %s)"
)
