"""An acknowledged append survives the process being SIGKILLed mid-run."""

from __future__ import annotations

import asyncio
import os
import selectors
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path

from clawharness.store.sqlite import SqliteStore

WRITER = textwrap.dedent("""
    import asyncio, sys
    from clawharness.store import NewEntry
    from clawharness.store.sqlite import SqliteStore

    async def writer(store, w):
        for i in range(1_000_000):
            text = f"writer {w} entry {i}"
            outs = await store.append_entries(f"k{w}", f"s{w}", [NewEntry("user", {"i": i}, text=text)])
            # acknowledged: the append returned, so it must survive a kill
            print(w, outs[0].entry.seq, i, flush=True)

    async def main():
        store = SqliteStore(sys.argv[1])
        await store.open()
        print("ready", flush=True)
        await asyncio.gather(*(writer(store, w) for w in range(8)))

    asyncio.run(main())
""")


def read_acks(proc: subprocess.Popen[str], want: int, timeout: float) -> list[tuple[int, int, int]]:
    """Collect acknowledgement lines until `want` of them, then SIGKILL the writer."""
    assert proc.stdout is not None
    acks: list[tuple[int, int, int]] = []
    sel = selectors.DefaultSelector()
    sel.register(proc.stdout, selectors.EVENT_READ)
    deadline = time.monotonic() + timeout
    try:
        while len(acks) < want:
            left = deadline - time.monotonic()
            assert left > 0, f"only {len(acks)} acknowledgements before the deadline"
            if not sel.select(left):
                continue
            line = proc.stdout.readline()
            assert line, f"the writer exited early: {proc.stderr.read() if proc.stderr else ''}"
            if line.strip() != "ready":
                w, seq, i = map(int, line.split())
                acks.append((w, seq, i))
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
    # lines already in the pipe were acknowledged before the kill too
    for line in proc.stdout.read().splitlines():
        parts = line.split()
        if len(parts) == 3:
            w, seq, i = map(int, parts)
            acks.append((w, seq, i))
    return acks


async def test_every_acknowledged_append_survives_sigkill(tmp_path: Path) -> None:
    path = tmp_path / "store.db"
    script = tmp_path / "writer.py"
    script.write_text(WRITER)
    proc = subprocess.Popen([sys.executable, str(script), str(path)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    acks = await asyncio.to_thread(read_acks, proc, 1500, 120.0)
    assert proc.returncode == -signal.SIGKILL

    with sqlite3.connect(path) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    with sqlite3.connect(f"{path}-search") as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        conn.execute("INSERT INTO transcript_fts (transcript_fts) VALUES ('integrity-check')")

    store = SqliteStore(path)
    await store.open()
    try:
        # rows the killed writer had not indexed yet get indexed without being asked
        deadline = time.monotonic() + 30
        with sqlite3.connect(path) as conn:
            conn.execute("ATTACH DATABASE ? AS s", (f"{path}-search",))
            current = ("SELECT (SELECT max(id) FROM transcript_entries) <= s.indexed_upto "
                       "FROM s.search_state s")
            while conn.execute(current).fetchone() != (1,):
                assert time.monotonic() < deadline, "the index backlog was not caught up"
                await asyncio.sleep(0.01)
        for w in range(8):
            stored = {e.seq: e for e in await store.read_entries(f"s{w}")}
            mine = [(seq, i) for ww, seq, i in acks if ww == w]
            assert mine, f"writer {w} acknowledged nothing"
            for seq, i in mine:
                assert seq in stored, f"acknowledged entry s{w}/{seq} was lost"
                assert stored[seq].content == {"i": i}
            # seqs are dense: nothing half-written in the middle
            assert sorted(stored) == list(range(1, len(stored) + 1))
        hits = await store.search("writer entry", session_key="k0", limit=1)
        assert hits and hits[0].session_key == "k0"
        outs = await store.append_entries("k0", "s0", [])
        assert outs == []
    finally:
        await store.close()
