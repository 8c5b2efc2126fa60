"""Rule 1: one namespace, a versioned record codec, conditional writes, size limits."""

from __future__ import annotations

from typing import Any

import pytest

from clawharness.sessions.bindings import (
    DictRecordCodec,
    InvalidRecordError,
    Lease,
    PluginStateNamespace,
    UnsupportedRecordVersionError,
    ValueTooLargeError,
    bound_fingerprint,
    fingerprint,
    is_fingerprint,
)
from clawharness.store.sqlite import SqliteStore


def ns(store: SqliteStore, **kwargs: Any) -> PluginStateNamespace[dict[str, Any]]:
    return PluginStateNamespace(store, "codex-bindings", DictRecordCodec(), **kwargs)


async def test_async_and_sync_views_see_the_same_rows(store: SqliteStore) -> None:
    rows = ns(store)
    written = await rows.register_if_absent("k", {"threadId": "t-1"},
                                            lease=Lease("tok", 123.0))
    assert written is not None and written.generation == 1
    seen = rows.get_sync("k")
    assert seen is not None
    assert seen.record == {"threadId": "t-1"}
    assert seen.raw == {"version": 1, "threadId": "t-1"}
    assert seen.lease == Lease("tok", 123.0)
    assert rows.update_if_current_sync("k", 1, {"threadId": "t-2"}) is not None
    again = await rows.get("k")
    assert again is not None and again.record == {"threadId": "t-2"}
    assert again.generation == 2 and again.lease is None  # a write without a lease clears it


async def test_conditional_writes_refuse_other_state(store: SqliteStore) -> None:
    rows = ns(store)
    assert await rows.register_if_absent("k", {"a": 1}) is not None
    assert await rows.register_if_absent("k", {"a": 2}) is None
    assert rows.register_if_absent_sync("k", {"a": 3}) is None
    assert await rows.update_if_current("k", 7, {"a": 4}) is None
    assert await rows.delete_if("k", 7) is False
    assert rows.delete_if_sync("k", 7) is False
    current = await rows.get("k")
    assert current is not None and current.record == {"a": 1}
    assert rows.delete_if_sync("k", current.generation) is True
    assert await rows.get("k") is None


async def test_a_newer_record_version_is_refused_clearly(store: SqliteStore) -> None:
    await store.state_insert_if_absent("codex-bindings", "future", {"version": 2, "x": 1})
    with pytest.raises(UnsupportedRecordVersionError, match="newer than this release"):
        await ns(store).get("future")
    with pytest.raises(UnsupportedRecordVersionError, match="'future'"):
        ns(store).get_sync("future")


async def test_rows_without_a_valid_version_are_invalid(store: SqliteStore) -> None:
    await store.state_insert_if_absent("codex-bindings", "bare", {"threadId": "t"})
    await store.state_insert_if_absent("codex-bindings", "list", [1, 2])
    with pytest.raises(InvalidRecordError, match="no valid version"):
        await ns(store).get("bare")
    with pytest.raises(InvalidRecordError, match="JSON object"):
        await ns(store).get("list")


async def test_an_older_version_is_upgraded_when_the_codec_knows_how(store: SqliteStore) -> None:
    await store.state_insert_if_absent("codex-bindings", "old", {"version": 1, "thread": "t"})
    codec = DictRecordCodec(version=2, upgrade={1: lambda b: {"threadId": b["thread"]}})
    rows: PluginStateNamespace[dict[str, Any]] = PluginStateNamespace(
        store, "codex-bindings", codec)
    row = await rows.get("old")
    assert row is not None and row.record == {"threadId": "t"}
    await rows.register_if_absent("new", {"threadId": "u"})
    assert (await store.state_get("codex-bindings", "new")).value == {  # type: ignore[union-attr]
        "version": 2, "threadId": "u"}


async def test_values_over_the_size_limit_are_refused(store: SqliteStore) -> None:
    rows = ns(store, max_value_bytes=1024)
    with pytest.raises(ValueTooLargeError, match="over the limit of 1024"):
        await rows.register_if_absent("big", {"tools": "x" * 2000})
    with pytest.raises(ValueTooLargeError):
        rows.register_if_absent_sync("big", {"tools": "x" * 2000})
    assert await rows.get("big") is None
    # The fix the error suggests: store a bounded fingerprint instead.
    stored = await rows.register_if_absent("big", {"tools": fingerprint("x" * 2000)})
    assert stored is not None and is_fingerprint(stored.record["tools"])


def test_fingerprints_are_bounded_and_stable() -> None:
    first = fingerprint({"b": 1, "a": [1, 2]})
    assert first == fingerprint({"a": [1, 2], "b": 1})
    assert is_fingerprint(first) and len(first) == len("sha256:") + 64
    assert not is_fingerprint("sha256:xyz") and not is_fingerprint(7)
    assert bound_fingerprint(first) == first
    assert bound_fingerprint('[{"name":"exec"}]') == fingerprint('[{"name":"exec"}]')
    assert bound_fingerprint("") == "" and bound_fingerprint("[]") == "[]"


async def test_validation_failures_read_as_invalid_rows(store: SqliteStore) -> None:
    def validate(body: dict[str, Any]) -> dict[str, Any]:
        if not isinstance(body.get("threadId"), str):
            raise ValueError("threadId must be a string")
        return body

    rows: PluginStateNamespace[dict[str, Any]] = PluginStateNamespace(
        store, "codex-bindings", DictRecordCodec(validate=validate))
    await store.state_insert_if_absent("codex-bindings", "bad", {"version": 1, "threadId": 3})
    with pytest.raises(InvalidRecordError, match="threadId must be a string"):
        await rows.get("bad")
    with pytest.raises(ValueError):
        await rows.register_if_absent("other", {"threadId": 4})
    listed = await rows.list_rows(prefix="oth")
    assert listed == []


def test_the_package_exports_what_it_lists() -> None:
    import clawharness.sessions.bindings as bindings

    missing = [name for name in bindings.__all__ if not hasattr(bindings, name)]
    assert missing == []
    assert "harness_session_hooks" in bindings.__all__
    assert "create_native_session_binding_lifecycle" in bindings.__all__
