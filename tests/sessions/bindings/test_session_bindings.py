"""SessionBindings: one record per host session, read and written through the SDK, and
removed by the host's session hooks with the session."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from clawharness.errors import HarnessError
from clawharness.plugin_sdk.agent_harness import JsonObject
from clawharness.plugin_sdk.agent_harness_session_runtime import (
    BoundSession,
    InvalidRecordError,
    JsonRecordCodec,
    RemovedBinding,
    SessionBindings,
    SessionHookParams,
    native_session_bindings,
)
from clawharness.plugin_sdk.testing import attempt_params
from clawharness.store.sqlite import SqliteStore

KEY = "agent:main:main"


def hook(reason: str = "reset") -> SessionHookParams:
    return SessionHookParams(agent_id="main", session_key=KEY, session_id="host-1",
                             reason=reason, store_url="unused")


def json_bindings(store: SqliteStore) -> SessionBindings[JsonObject]:
    return SessionBindings("echo", codec=JsonRecordCodec(), empty={}, store=store)


async def test_write_read_and_delete_one_sessions_record(store: SqliteStore) -> None:
    bindings = json_bindings(store)
    assert await bindings.read("main", KEY) is None
    await bindings.write("main", KEY, {"nativeSessionId": "n1", "turns": 1})
    await bindings.write("main", "agent:main:other", {"nativeSessionId": "n2"})
    assert await bindings.read("main", KEY) == {"nativeSessionId": "n1", "turns": 1}
    [row] = await store.state_list("echo.bindings", prefix="main:agent:main:main")
    assert row.value == {"version": 1, "nativeSessionId": "n1", "turns": 1}
    assert await bindings.delete("main", KEY)
    assert await bindings.read("main", KEY) is None
    assert not await bindings.delete("main", KEY)
    assert await bindings.read("main", "agent:main:other") == {"nativeSessionId": "n2"}


async def test_a_turn_holds_the_lease_and_writes_through_it(store: SqliteStore,
                                                            tmp_path: Path) -> None:
    bindings = json_bindings(store)
    params = attempt_params(workspace_dir=str(tmp_path))
    seen: list[Any] = []

    async def turn(bound: BoundSession[JsonObject]) -> str:
        seen.append(bound.record)
        bound.assert_lease()
        await bound.write({"nativeSessionId": "n1"})
        seen.append(bound.record)
        return "done"

    assert await bindings.with_turn(params, turn) == "done"
    assert seen == [None, {"nativeSessionId": "n1"}]
    row = await store.state_get("echo.bindings", f"main:{params.session_key}")
    assert row is not None and row.lease_token is None  # released when the turn ended

    async def forget(bound: BoundSession[JsonObject]) -> None:
        assert bound.record == {"nativeSessionId": "n1"}
        await bound.clear()
        assert bound.record is None

    await bindings.with_turn(params, forget)
    assert await bindings.read("main", params.session_key) is None


async def test_host_reset_and_deletion_remove_the_binding_and_notify(store: SqliteStore) -> None:
    bindings = json_bindings(store)
    removed: list[tuple[str, str]] = []
    dropped: list[tuple[str, str | None, str]] = []

    async def note(binding: RemovedBinding[JsonObject]) -> None:
        removed.append((binding.agent_id, binding.session_key))
        # the callback is told which native session to drop with the binding
        dropped.append((binding.reason, binding.native_session_id, binding.key))

    bindings.on_removed(note)
    await bindings.write("main", KEY, {"nativeSessionId": "n1"})
    await bindings.reset(hook())
    assert await bindings.read("main", KEY) is None
    assert removed == [("main", KEY)]

    await bindings.write("main", KEY, {"nativeSessionId": "n2"})

    async def rolled_back(commit: Any, rollback: Any) -> None:
        commit()
        rollback()

    await bindings.with_session_deletion(hook("deleted"), rolled_back)
    assert await bindings.read("main", KEY) == {"nativeSessionId": "n2"}
    assert removed == [("main", KEY)]  # nothing was removed, nobody is told

    async def committed(commit: Any, rollback: Any) -> str:
        commit()
        return "deleted"

    assert await bindings.with_session_deletion(hook("deleted"), committed) == "deleted"
    assert await bindings.read("main", KEY) is None
    assert removed == [("main", KEY), ("main", KEY)]
    assert dropped == [("reset", "n1", f"main:{KEY}"), ("deleted", "n2", f"main:{KEY}")]


async def test_a_failing_cleanup_callback_does_not_undo_the_removal(store: SqliteStore) -> None:
    bindings = json_bindings(store)

    async def broken(binding: RemovedBinding[JsonObject]) -> None:
        raise RuntimeError("the process was already gone")

    bindings.on_removed(broken)
    await bindings.write("main", KEY, {"nativeSessionId": "n1"})
    await bindings.reset(hook())
    assert await bindings.read("main", KEY) is None


async def test_records_are_validated_before_they_are_stored(store: SqliteStore) -> None:
    native = native_session_bindings("cli", store=store)
    with pytest.raises(InvalidRecordError,
                       match=re.escape("cli.bindings: the binding 'main:agent:main:main' "
                                       "was not stored: nativeSessionId must be a string")):
        await native.write("main", KEY, {"nativeSessionId": 42})
    assert await native.read("main", KEY) is None
    await store.state_insert_if_absent("cli.bindings", f"main:{KEY}",
                                         {"version": 9, "nativeSessionId": "x"})
    with pytest.raises(InvalidRecordError, match="newer than this release"):
        await native.read("main", KEY)


async def test_without_a_store_or_directory_a_turn_says_where_to_keep_bindings(
        tmp_path: Path) -> None:
    loose: SessionBindings[JsonObject] = SessionBindings("echo", codec=JsonRecordCodec(),
                                                         empty={})
    assert await loose.read("main", KEY) is None  # nothing stored anywhere yet

    async def turn(bound: BoundSession[JsonObject]) -> None:
        raise AssertionError("unreachable")

    with pytest.raises(HarnessError, match="no host store and no state directory"):
        await loose.with_turn(attempt_params(workspace_dir=str(tmp_path)), turn)
    # the attempt's host state dir is a place of last resort
    params = attempt_params(workspace_dir=str(tmp_path), state_dir=str(tmp_path / "state"))

    async def write(bound: BoundSession[JsonObject]) -> None:
        await bound.write({"n": 1})

    await loose.with_turn(params, write)
    assert (tmp_path / "state" / "plugins" / "echo" / "bindings.sqlite").exists()
    await loose.close()
