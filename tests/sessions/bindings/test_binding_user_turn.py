"""Rule 7: user-turn persistence facts and idempotent re-import after a resume."""

from __future__ import annotations

from typing import Any

from _host import new_session

from clawharness.sessions.bindings import (
    PersistedUserTurn,
    UserTurnTranscriptRecorder,
    reimport_native_entries,
)
from clawharness.store import NewEntry
from clawharness.store.sqlite import SqliteStore


def test_only_a_real_append_announces_the_original_input() -> None:
    announced: list[PersistedUserTurn] = []
    recorder = UserTurnTranscriptRecorder(on_original_input_committed=announced.append)
    message = {"role": "user", "content": "hello"}
    assert recorder.mark_runtime_persisted(message, 4, appended=False) is False
    assert announced == [] and recorder.persisted == PersistedUserTurn(message, 4)
    assert recorder.mark_runtime_persisted(message, 5, appended=True) is True
    assert announced == [PersistedUserTurn(message, 5)]
    assert recorder.mark_runtime_persisted(message, 5, appended=True) is False  # once
    assert len(announced) == 1


async def test_a_history_match_reports_false(store: SqliteStore) -> None:
    record = await new_session(store)
    announced: list[Any] = []
    recorder = UserTurnTranscriptRecorder(on_original_input_committed=announced.append)
    entry = NewEntry(role="user", content="hi", idempotency_key="run-1:user")
    [first] = await store.append_entries(record.key, record.session_id, [entry])
    [again] = await store.append_entries(record.key, record.session_id, [entry])
    assert again.appended is False
    assert recorder.mark_outcome({"role": "user", "content": "hi"}, again) is False
    assert announced == []
    assert recorder.mark_outcome({"role": "user", "content": "hi"}, first) is True
    assert len(announced) == 1 and announced[0].anchor == first.entry.seq


async def test_reimported_native_entries_are_stored_once(store: SqliteStore) -> None:
    record = await new_session(store)
    native = [
        {"id": "item-1", "role": "user", "content": "build it"},
        {"id": "item-2", "role": "assistant", "content": "done"},
    ]
    first = await reimport_native_entries(store, record.key, record.session_id, native,
                                          key_for=lambda e: e["id"])
    assert [o.appended for o in first] == [True, True]
    # After a resume the runtime hands back the old entries plus a new reply.
    resumed = [*native, native[1], {"id": "item-3", "role": "assistant", "content": "more"}]
    second = await reimport_native_entries(store, record.key, record.session_id, resumed,
                                           key_for=lambda e: e["id"])
    assert [o.appended for o in second] == [False, False, True]
    stored = await store.read_entries(record.session_id)
    assert [e.content["id"] for e in stored] == ["item-1", "item-2", "item-3"]
    assert [e.idempotency_key for e in stored] == ["native:item-1", "native:item-2",
                                                   "native:item-3"]
    assert await reimport_native_entries(store, record.key, record.session_id, [],
                                         key_for=lambda e: e["id"]) == []
