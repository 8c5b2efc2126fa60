"""How many SQLite statements a warm turn makes on the embedded store: the turn's store
work is a handful of short transactions, and these tests pin its size (a count, not a
time), so a change that adds a read or a transaction to every turn shows here."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from clawharness.host import Host
from clawharness.store.sqlite import SqliteStore

SCRIPT = {"responses": [
    {"match": "^go", "repeat": True,
     "tool_calls": [{"name": "read", "arguments": {"path": "data.txt"}}]},
    {"match": "hello data", "repeat": True, "text": "done"},
]}

#: a turn on a new session, one tool call: the lease taken in the transaction that
#: gives back the previous turn's (it says, too, whether another process holds the
#: session, for a steered message), with the session read (5: its
#: holder does not wait for the release, which the next write commits; the row is read
#: in the lease's transaction, not in an autocommit read of its own), the steering inbox
#: read (1), its row made with its transcript (the four entries in one append) and the
#: previous turn's spend row (9: written behind its turn, it too goes with the next
#: write): 15. One over that: a release or a spend row left open longer than its 2 ms
#: (a slow machine) commits alone, which costs two statements and a transaction each
#: time. The inspector's records, written in batches behind the turns, are counted apart
NEW_SESSION_TURN_MAX = 16


@pytest.fixture
async def host(tmp_path: Path) -> AsyncIterator[Host]:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "data.txt").write_text("hello data\n")
    config = {
        "models": {"providers": {"local": {"api": "scripted", "models": [
            {"id": "m", "params": {"script": SCRIPT}}]}}},
        "agents": {"defaults": {"model": "local/m", "workspace": str(ws)}},
        "tools": {"allow": ["read"]},
    }
    path = tmp_path / "config.json"
    path.write_text(json.dumps(config))
    made = Host.from_config(path, env={"CLAWHARNESS_STATE_DIR": str(tmp_path)},
                            store_url=str(tmp_path / "turns.db"))
    await made.start()
    try:
        yield made
    finally:
        await made.close()


@contextmanager
def traced(store: Any) -> Iterator[list[str]]:
    """Every statement the store's own connections run meanwhile (the search index's
    thread, which works behind the appends, not on the turn's path, is left out)."""
    assert isinstance(store, SqliteStore)
    writer = store._writer
    assert writer is not None
    conns: list[sqlite3.Connection] = [c for c in (store._small, store._inline, store._sync,
                                                   writer._conn, *store._read_conns)
                                       if c is not None]
    seen: list[str] = []
    for conn in conns:
        conn.set_trace_callback(seen.append)
    try:
        yield seen
    finally:
        for conn in conns:
            conn.set_trace_callback(None)


def without_turn_records(seen: list[str]) -> tuple[list[str], int]:
    """The statements less the inspector's record batches, and how many batches."""
    kept: list[str] = []
    batches = 0
    txn: list[str] = []
    for s in seen:
        if s == "BEGIN IMMEDIATE" or txn:
            txn.append(s)
            if s != "COMMIT":
                continue
            if all(t.startswith("INSERT OR REPLACE INTO turn_records") for t in txn[1:-1]):
                batches += 1
            else:
                kept.extend(txn)
            txn = []
        else:
            kept.append(s)
    return kept + txn, batches


async def turn(host: Host, key: str) -> None:
    result = await host.run_turn(key, "go")
    assert (result.terminal, result.text) == ("ok", "done")


async def test_a_warm_turn_on_a_new_session_stays_within_its_statement_count(
        host: Host) -> None:
    for i in range(3):
        await turn(host, f"warm{i}")
    n = 8
    with traced(host.store) as seen:
        for i in range(n):
            await turn(host, f"s{i}")
    kept, record_batches = without_turn_records(seen)
    assert record_batches <= n
    begins = sum(s == "BEGIN IMMEDIATE" for s in kept)
    assert len(kept) / n <= NEW_SESSION_TURN_MAX, "\n".join(kept)
    assert begins / n <= 2.5, "\n".join(kept)
    # every append is one transaction of one read, its rows and the session's touch
    assert not any(s.startswith("SELECT max(seq)") for s in seen)
    assert not any(s.startswith("SELECT token, fence FROM session_leases") for s in seen)
    # a steered message's "does another process hold it?" is the lease's own answer, not
    # a read of the lease's state before it
    assert not any(s.startswith("SELECT l.holder") for s in seen), "\n".join(seen)
    # a turn's lease goes in with the previous turn's release, in one transaction (but
    # where the release waited out its 2 ms on a slow machine and went alone)
    acquired = [i for i, s in enumerate(kept) if s.startswith("INSERT INTO session_leases")]
    with_release = sum(
        any(s.startswith("UPDATE session_leases SET token = NULL")
            for s in kept[max(i for i in range(at) if kept[i] == "BEGIN IMMEDIATE"):at])
        for at in acquired[1:])
    assert with_release >= (n - 1) // 2, "\n".join(kept)
    # the session row is read in the transaction that takes the lease (the first turn's
    # began before the trace did: the previous turn's release opened it)
    reads = [i for i, s in enumerate(kept) if s.startswith("SELECT key, session_id")]
    assert len(reads) == n, "\n".join(kept)
    for at in reads:
        txn = kept[max([i for i in range(at) if kept[i] == "BEGIN IMMEDIATE"], default=0):at]
        assert "COMMIT" not in txn and any(
            t.startswith("INSERT INTO session_leases") for t in txn), "\n".join(kept)
    # the session row goes in with the transcript's first entry, in one transaction
    for at in [i for i, s in enumerate(kept) if s.startswith("INSERT INTO sessions")]:
        txn = kept[at:kept.index("COMMIT", at)]
        assert any(s.startswith("INSERT INTO transcript_entries") for s in txn), txn
    roles = [[e.role for e in await host.history(f"s{i}")] for i in range(n)]
    assert roles == [["user", "assistant", "toolResult", "assistant"]] * n
