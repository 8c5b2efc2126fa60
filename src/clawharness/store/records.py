"""The store's records: session rows, transcript entries, search hits, plugin-state rows.

Records are frozen dataclasses; JSON columns hold plain JSON values
(dict/list/str/num/bool/None). `dump_json` and `check_session_update` are the rules both
implementations apply to what they are given.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from clawharness._json_text import dumps_strict
from clawharness.errors import StoreError
from clawharness.records.session_meta import SessionMeta

__all__ = [
    "SESSION_UPDATE_FIELDS",
    "AppendOutcome",
    "NewEntry",
    "PluginStateRecord",
    "SearchHit",
    "SessionRecord",
    "TranscriptEntry",
    "check_session_update",
    "dump_json",
    "new_session_row",
    "stored_session_meta",
]


@dataclass(frozen=True, slots=True)
class SessionRecord:
    """One session row: a stable key and its current physical session id."""

    key: str
    session_id: str
    agent_id: str
    model_ref: str | None = None
    agent_harness_id: str | None = None
    created_at: float = 0.0
    updated_at: float = 0.0
    #: typed here; the stores keep it as JSON (`SessionMeta.to_stored`/`from_stored`)
    meta: SessionMeta = field(default_factory=SessionMeta)


@dataclass(frozen=True, slots=True)
class NewEntry:
    """A transcript entry to append.

    `idempotency_key`, when given, makes a retried append a no-op: the store returns
    the entry already stored under that key (per physical session) with
    `appended=False`. `text` is what the search index sees (defaults to none).
    """

    role: str
    content: Any
    metadata: dict[str, Any] | None = None
    idempotency_key: str | None = None
    text: str | None = None


@dataclass(frozen=True, slots=True)
class TranscriptEntry:
    """One stored transcript entry; `seq` starts at 1 per physical session."""

    session_key: str
    session_id: str
    seq: int
    role: str
    content: Any
    metadata: dict[str, Any]
    idempotency_key: str | None
    text: str | None
    created_at: float


@dataclass(frozen=True, slots=True)
class AppendOutcome:
    """One appended entry, or (`appended=False`) the one already stored under its key."""

    entry: TranscriptEntry
    appended: bool


@dataclass(frozen=True, slots=True)
class SearchHit:
    """One search match; a higher `score` is a better match (0.0 when ranked by recency)."""

    session_key: str
    session_id: str
    seq: int
    role: str
    text: str
    score: float


@dataclass(frozen=True, slots=True)
class PluginStateRecord:
    """One plugin-state row. `generation` increases by one on every write."""

    namespace: str
    key: str
    value: Any
    generation: int
    lease_token: str | None = None
    lease_expires_at: float | None = None


#: the fields `update_session` may set
SESSION_UPDATE_FIELDS = frozenset({"session_id", "model_ref", "agent_harness_id", "meta"})


def dump_json(value: Any, what: str) -> str:
    """Serialize one JSON column value (strict JSON: no NaN); StoreError if impossible."""
    try:
        return dumps_strict(value)
    except (TypeError, ValueError) as exc:
        raise StoreError(f"{what} is not JSON-serializable: {exc}") from exc


def check_session_update(key: str, fields: Mapping[str, Any]) -> dict[str, Any]:
    """Validate `update_session` fields; returns them with `meta` as the JSON to store."""
    unknown = sorted(set(fields) - SESSION_UPDATE_FIELDS)
    if unknown:
        raise StoreError(
            f"update_session({key!r}): cannot set {', '.join(unknown)}; "
            f"settable fields are {', '.join(sorted(SESSION_UPDATE_FIELDS))}"
        )
    out = dict(fields)
    if "session_id" in out and not isinstance(out["session_id"], str):
        raise StoreError(f"update_session({key!r}): session_id must be a string")
    if "meta" in out:
        if not isinstance(out["meta"], SessionMeta):
            raise StoreError(f"update_session({key!r}): meta must be a SessionMeta, not "
                             f"{type(out['meta']).__name__}")
        out["meta"] = out["meta"].to_stored()
    return out


def stored_session_meta(stored: object) -> SessionMeta:
    """A row's meta column, decoded: typed (a value that is not a JSON object, which
    this code never writes, reads as no meta)."""
    return SessionMeta.from_stored(stored) if isinstance(stored, dict) else SessionMeta()


def new_session_row(record: SessionRecord) -> tuple[SessionRecord, str]:
    """A new session's row as `create_session` stores it (its times filled in, now when
    unset) and its meta as JSON."""
    created = record.created_at or time.time()
    stored = SessionRecord(record.key, record.session_id, record.agent_id, record.model_ref,
                           record.agent_harness_id, created, record.updated_at or created,
                           record.meta)
    return stored, dump_json(stored.meta.to_stored(), f"meta of session {record.key!r}")
