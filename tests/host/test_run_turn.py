"""End to end through `Host.run_turn`: scripted model over real HTTP, SQLite store."""

from __future__ import annotations

import asyncio
import dataclasses
import itertools
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from clawharness.attempt.turn import TurnOptions
from clawharness.errors import (
    ConditionalWriteConflict,
    SessionBusyError,
    SessionNotFoundError,
    StoreError,
)


async def test_text_turn_is_answered_mirrored_and_pins_the_builtin_runtime(scripted_host: Any) -> None:
    host, _ = await scripted_host({"responses": [{"text": "hi there"}]})
    result = await host.run_turn("agent:main:t1", "hello")
    assert (result.terminal, result.text) == ("ok", "hi there")
    assert (result.runtime, result.selected_reason) == ("openclaw", "auto_openclaw")
    entries = await host.history("agent:main:t1")
    assert [e.role for e in entries] == ["user", "assistant"]
    assert entries[0].text == "hello" and entries[1].text == "hi there"
    record = await host.get_session("agent:main:t1")
    assert record.agent_harness_id == "openclaw"
    assert record.model_ref == "scripted/m1"


async def test_tool_turn_writes_in_the_workspace_and_reports_the_tool(scripted_host: Any, tmp_path: Path) -> None:
    host, _ = await scripted_host({"responses": [
        {"tool_calls": [{"name": "write", "arguments": {"path": "a.txt", "content": "A"}}]},
        {"text": "done"},
    ]})
    result = await host.run_turn("work", "write a file")
    assert result.session_key == "agent:main:work"
    assert [(c.tool_name, c.is_error) for c in result.tool_calls] == [("write", False)]
    assert (tmp_path / "workspace" / "a.txt").read_text() == "A"
    roles = [e.role for e in await host.history("work")]
    assert roles == ["user", "assistant", "toolResult", "assistant"]


async def test_continuing_a_session_sends_its_history_to_the_model(scripted_host: Any) -> None:
    host, server = await scripted_host({"responses": [{"text": "first"}, {"text": "second"}]})
    await host.run_turn("s", "one")
    await host.run_turn("s", "two")
    body = server.requests[-1].body
    texts = str(body.get("input"))
    assert "one" in texts and "first" in texts and "two" in texts


async def test_partial_replies_stream_before_the_turn_ends(scripted_host: Any) -> None:
    host, _ = await scripted_host({"responses": [{"text": "a fairly long streamed answer"}]})
    deltas: list[str] = []
    result = await host.run_turn("s", "go", TurnOptions(on_partial_reply=deltas.append))
    # partial replies carry the cumulative text so far, as in the original
    assert deltas[-1] == result.text
    assert len(deltas) > 1
    assert all(later.startswith(earlier) for earlier, later in itertools.pairwise(deltas))


async def test_model_error_is_a_failed_turn_with_the_message_and_the_user_turn_kept(scripted_host: Any) -> None:
    host, _ = await scripted_host({"responses": [{"error": {"status": 500, "message": "upstream broke"}}]})
    result = await host.run_turn("s", "hello", TurnOptions(max_steps=2))
    assert result.terminal == "failed"
    assert result.error
    entries = await host.history("s")
    assert entries[0].role == "user" and entries[0].text == "hello"


async def test_silent_reply_is_not_delivered(scripted_host: Any) -> None:
    host, _ = await scripted_host({"responses": [{"text": "NO_REPLY"}]})
    result = await host.run_turn("s", "shh")
    assert result.silent and result.text == "" and result.payloads == ()


async def test_concurrent_turns_on_one_session_queue_and_on_others_run_alongside(scripted_host: Any) -> None:
    host, _ = await scripted_host({"responses": [{"text": "ok", "delay_ms": 20}], "exhausted": "text"})
    results = await asyncio.gather(*(host.run_turn("same", f"m{i}") for i in range(5)),
                                   *(host.run_turn(f"other{i}", "x") for i in range(5)))
    assert all(r.terminal == "ok" for r in results)
    entries = await host.history("same")
    users = [e.text for e in entries if e.role == "user"]
    assert sorted(users) == [f"m{i}" for i in range(5)]
    # each turn's user message is directly followed by its own reply: no interleaving
    roles = [e.role for e in entries]
    assert roles == ["user", "assistant"] * 5


async def test_a_turn_that_cannot_get_its_session_in_time_is_busy(scripted_host: Any) -> None:
    host, _ = await scripted_host({"responses": [{"text": "slow", "delay_ms": 400}, {"text": "x"}]})
    first = asyncio.create_task(host.run_turn("s", "one"))
    await asyncio.sleep(0.05)
    with pytest.raises(SessionBusyError):
        await host.run_turn("s", "two", TurnOptions(busy_timeout=0.05))
    assert (await first).terminal == "ok"


async def test_reset_starts_a_fresh_physical_session_and_delete_removes_it(scripted_host: Any) -> None:
    host, _ = await scripted_host({"responses": [{"text": "a"}, {"text": "b"}]})
    first = await host.run_turn("s", "one")
    record = await host.reset_session("s")
    assert record.session_id != first.session_id
    assert await host.history("s") == []
    second = await host.run_turn("s", "two")
    assert second.session_id == record.session_id
    assert await host.delete_session("s") is True
    with pytest.raises(SessionNotFoundError):
        await host.get_session("s")
    assert await host.delete_session("s") is False


async def test_rewind_drops_entries_after_the_cut(scripted_host: Any) -> None:
    host, _ = await scripted_host({"responses": [{"text": "a"}, {"text": "b"}]})
    await host.run_turn("s", "one")
    await host.run_turn("s", "two")
    entries = await host.history("s")
    assert len(entries) == 4
    dropped = await host.rewind_session("s", to_seq=entries[1].seq)
    assert dropped == 2
    assert [e.text for e in await host.history("s")] == ["one", "a"]


async def test_search_finds_transcript_text_by_session(scripted_host: Any) -> None:
    host, _ = await scripted_host({"responses": [{"text": "the zebra sleeps"}, {"text": "nothing"}]})
    await host.run_turn("a", "tell me about zebras")
    await host.run_turn("b", "other")
    hits = await host.search("zebra")
    assert {h.session_key for h in hits} == {"agent:main:a"}
    assert await host.search("zebra", session_key="b") == []


async def test_a_transcript_write_that_fails_mid_turn_fails_the_turn_without_a_gap(
        scripted_host: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    host, _ = await scripted_host({"responses": [{"text": "first answer"}, {"text": "never stored"}]})
    assert (await host.run_turn("gap", "one")).terminal == "ok"
    store = host.store
    real_append = store.append_entries
    calls = 0

    async def fail_after_the_prompt(*args: Any, **kwargs: Any) -> Any:
        nonlocal calls
        calls += 1
        if calls > 1:
            raise StoreError("disk full (injected)")
        return await real_append(*args, **kwargs)

    monkeypatch.setattr(store, "append_entries", fail_after_the_prompt)
    result = await host.run_turn("gap", "two")
    assert result.terminal == "failed"
    assert "the transcript could not be stored" in (result.error or "")
    monkeypatch.undo()
    roles = [e.role for e in await host.history("gap")]
    assert roles == ["user", "assistant", "user"]  # what was stored stays, nothing after it


async def test_a_lost_race_to_create_the_session_writes_nothing_and_changes_nothing(
        scripted_host: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # the row is created while the turn's first attempt already runs: the transcript and
    # any tool that may change state wait for the creation, so the loser leaves no trace
    host, _ = await scripted_host({"responses": [
        {"tool_calls": [{"name": "write", "arguments": {"path": "lost.txt", "content": "x"}}]},
        {"text": "done"},
    ]})
    store = host.store
    real_create = store.create_session

    async def someone_else_first(record: Any) -> Any:
        await real_create(dataclasses.replace(record, session_id="theirs"))
        return await real_create(record)

    real_with_entries = store.create_session_with_entries

    async def someone_else_first_with_entries(record: Any, *args: Any, **kw: Any) -> Any:
        # (a new session's row usually goes in with the transcript's first append)
        await real_create(dataclasses.replace(record, session_id="theirs"))
        return await real_with_entries(record, *args, **kw)

    monkeypatch.setattr(store, "create_session", someone_else_first)
    monkeypatch.setattr(store, "create_session_with_entries", someone_else_first_with_entries)
    with pytest.raises(ConditionalWriteConflict):
        await host.run_turn("race", "write a file")
    monkeypatch.undo()
    assert not (tmp_path / "workspace" / "lost.txt").exists()
    record = await host.get_session("race")
    assert record.session_id == "theirs"
    assert await host.history("race") == []
    with sqlite3.connect(store.path) as conn:  # nothing under the loser's session id either
        assert conn.execute("SELECT count(*) FROM transcript_entries").fetchone() == (0,)
