"""The per-session writer lease under contention, and what it costs uncontended.

Eight worker processes (one host each, an in-process scripted model, no HTTP) run 25
turns each (10 with --quick), started together:
  - on ONE session (every turn waits for the others: turns/s is the session's
    throughput, the lease wait is the queueing time), and
  - on 8 sessions, one per process (no contention: the lease is pure overhead),
on SQLite and on PostgreSQL. The peer in the same run is the same workload without the
lease (each host's in-process queue only). On one session that peer is not correct:
turns run at once and the transcript interleaves (counted in `*_misordered`).

Uncontended cost on SQLite, in one process: the writer slot's cycle (acquire + release)
with and without the lease, and the median turn with and without it (interleaved
blocks); beside it the OpenAI Agents SDK's `SQLiteSession` per-turn session work
(`get_items` + `add_items` of one exchange), as a yardstick.

    python bench/contention.py [--quick] [--pg URL]
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import json
import os
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from _common import console, emit, median, pct, show

PG_URL = os.environ.get("CLAWHARNESS_TEST_PG_URL", "postgresql://postgres@127.0.0.1:5432/test")
WORKERS = 8
TURNS = 25
SCRIPT = {"responses": [{"match": ".", "repeat": True, "text": "ok"}]}


def write_config(root: Path, store_url: str) -> Path:
    ws = root / "ws"
    ws.mkdir(parents=True, exist_ok=True)
    path = root / f"config-{uuid.uuid4().hex[:6]}.json"
    path.write_text(json.dumps({
        "models": {"providers": {"bench": {"api": "scripted", "models": [
            {"id": "m", "params": {"script": SCRIPT}}]}}},
        "agents": {"defaults": {"model": "bench/m", "workspace": str(ws)}},
        "store": {"url": store_url},
    }))
    return path


async def open_host(config: Path, root: Path) -> Any:
    from clawharness.host import Host

    host = Host.from_config(config, env={"CLAWHARNESS_STATE_DIR": str(root)})
    return await host.start()


def use_writers(host: Any, writers: Any) -> None:
    """Make `writers` the ones the host's turns hold: the turn runner keeps its own
    reference (its context), so setting `host.writers` alone would change nothing."""
    from clawharness.attempt.executor import LocalTurnExecutor

    host.writers = writers
    executor = host.executor
    assert isinstance(executor, LocalTurnExecutor)
    executor.runner._context = dataclasses.replace(executor.runner._context, writers=writers)


def record_waits(host: Any, waits: list[float]) -> Any:
    """Wrap the host's writer slots so every turn's queueing time is kept."""
    inner = host.writers.hold

    @asynccontextmanager
    async def hold(key: str, **kw: Any) -> AsyncIterator[Any]:
        async with inner(key, **kw) as slot:
            waits.append(slot.waited)
            yield slot

    return hold


# --- a worker process ---------------------------------------------------------------

async def worker(root: Path, name: str) -> None:
    """Serve commands from stdin: open hosts, then run one scenario per `go`."""
    from clawharness.sessions.writers import SessionWriters

    hosts: dict[str, Any] = {}
    leased: dict[str, Any] = {}
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)

    def say(obj: dict[str, Any]) -> None:
        sys.stdout.write(json.dumps(obj) + "\n")
        sys.stdout.flush()

    while line := await reader.readline():
        cmd = json.loads(line)
        if cmd["op"] == "open":
            host = hosts[cmd["backend"]] = await open_host(Path(cmd["config"]), root)
            leased[cmd["backend"]] = host.writers
            for i in range(cmd["warm"]):  # warm: imports, caches, first-turn one-off work
                await host.run_turn(f"agent:main:warm-{name}-{i}", "go")
            say({"ready": True})
        elif cmd["op"] == "run":
            host = hosts[cmd["backend"]]
            use_writers(host, leased[cmd["backend"]] if cmd["lease"] else SessionWriters())
            waits: list[float] = []
            host.writers.hold = record_waits(host, waits)
            await reader.readline()  # "go": every worker starts at once
            started = time.perf_counter()
            for _ in range(cmd["turns"]):
                result = await host.run_turn(cmd["key"], f"turn from {name}")
                if result.terminal != "ok":
                    raise RuntimeError(f"turn failed: {result.error}")
            say({"elapsed": time.perf_counter() - started, "waits": waits,
                 "finished": time.time()})
        elif cmd["op"] == "seed":  # make the session exist before the crowd comes
            await hosts[cmd["backend"]].run_turn(cmd["key"], "seed")
            say({"seeded": True})
        elif cmd["op"] == "close":
            for host in hosts.values():
                await host.close()
            say({"closed": True})
            return


# --- the coordinator ------------------------------------------------------------------

class Pool:
    def __init__(self, root: Path, n: int) -> None:
        here = Path(__file__).resolve()
        self.procs = [subprocess.Popen(
            [sys.executable, str(here), "--worker", f"w{i}", "--root", str(root)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1,
            cwd=str(here.parent)) for i in range(n)]

    def send(self, proc: subprocess.Popen[str], obj: Any) -> None:
        assert proc.stdin is not None
        proc.stdin.write((obj if isinstance(obj, str) else json.dumps(obj)) + "\n")
        proc.stdin.flush()

    def read(self, proc: subprocess.Popen[str]) -> dict[str, Any]:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        if not line:
            raise RuntimeError(f"worker exited with {proc.wait()}")
        result: dict[str, Any] = json.loads(line)
        return result

    def all(self, obj: Any) -> list[dict[str, Any]]:
        for p in self.procs:
            self.send(p, obj)
        return [self.read(p) for p in self.procs]

    def run(self, backend: str, lease: bool, one_session: bool, tag: str,
            turns: int) -> dict[str, Any]:
        if one_session:  # without the lease, a crowd creating one session would conflict
            self.send(self.procs[0], {"op": "seed", "backend": backend,
                                      "key": f"agent:main:one-{tag}"})
            self.read(self.procs[0])
        for i, p in enumerate(self.procs):
            key = f"agent:main:one-{tag}" if one_session else f"agent:main:own-{tag}-{i}"
            self.send(p, {"op": "run", "backend": backend, "lease": lease, "key": key,
                          "turns": turns})
        started = time.time()
        for p in self.procs:
            self.send(p, "go")
        results = [self.read(p) for p in self.procs]
        wall = max(r["finished"] for r in results) - started
        waits = [w for r in results for w in r["waits"]]
        return {"tps": len(waits) / wall, "wait_p99_ms": pct(waits, 99) * 1000,
                "wait_p50_ms": pct(waits, 50) * 1000, "turns": len(waits)}

    def close(self) -> None:
        for p in self.procs:
            if p.poll() is None:
                self.send(p, {"op": "close"})
                self.read(p)
            p.wait(timeout=60)


async def misordered(config: Path, root: Path, key: str) -> int:
    """Transcript positions that break strict user/assistant alternation."""
    host = await open_host(config, root)
    try:
        roles = [e.role for e in await host.history(key)]
    finally:
        await host.close()
    return sum(1 for i, r in enumerate(roles) if r != ("user" if i % 2 == 0 else "assistant"))


# --- uncontended cost -------------------------------------------------------------------

async def slot_cycle_us(path: Path, n: int) -> tuple[float, float]:
    from clawharness.sessions.writers import SessionWriters
    from clawharness.store.sqlite import SqliteStore

    store = SqliteStore(path)
    await store.open()
    out = []
    try:
        for writers in (SessionWriters(), SessionWriters(store)):
            times = []
            for i in range(n):
                t = time.perf_counter()
                async with writers.hold(f"agent:main:cycle{i % 50}"):
                    pass
                times.append(time.perf_counter() - t)
            out.append(median(times) * 1e6)
            await writers.close()
    finally:
        await store.close()
    return out[0], out[1]


async def turn_delta_us(root: Path, n: int) -> tuple[float, float]:
    """Median turn on one session with and without the lease, in interleaved blocks."""
    from clawharness.sessions.writers import SessionWriters

    host = await open_host(write_config(root, str(root / "delta.db")), root)
    leased, bare = host.writers, SessionWriters()
    times: dict[bool, list[float]] = {True: [], False: []}
    try:
        for i in range(20):
            await host.run_turn(f"agent:main:warm{i}", "go")
        for block in range(n // 50):
            lease = block % 2 == 0
            use_writers(host, leased if lease else bare)
            for _ in range(50):
                t = time.perf_counter()
                await host.run_turn("agent:main:delta", "go")
                times[lease].append(time.perf_counter() - t)
    finally:
        use_writers(host, leased)
        await host.close()
    return median(times[False]) * 1e6, median(times[True]) * 1e6


async def sdk_session_us(root: Path, n: int) -> float:
    from agents import SQLiteSession

    session = SQLiteSession("bench", root / "sdk.db")
    times = []
    for _ in range(n):
        t = time.perf_counter()
        await session.get_items()
        await session.add_items([{"role": "user", "content": "go"},
                                 {"role": "assistant", "content": "ok"}])
        times.append(time.perf_counter() - t)
        if len(times) % 100 == 0:
            await session.clear_session()  # keep the history short, like one turn's
    return median(times) * 1e6


def pg_schema(url: str) -> tuple[str, str] | None:
    import psycopg

    schema = f"bench_contention_{uuid.uuid4().hex[:8]}"
    try:
        with psycopg.connect(url, autocommit=True, connect_timeout=3) as conn:
            conn.execute(f'CREATE SCHEMA "{schema}"')
    except psycopg.Error as exc:
        console.print(f"[yellow]PostgreSQL skipped: {exc}[/]")
        return None
    sep = "&" if "?" in url else "?"
    return schema, f"{url}{sep}options=-csearch_path%3D{schema}"


def drop_schema(url: str, schema: str) -> None:
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="a smaller run, under a minute")
    parser.add_argument("--pg", default=PG_URL, help="PostgreSQL URL (a schema is made)")
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    parser.add_argument("--root", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        await worker(Path(args.root), args.worker)
        return
    repeats, turns, cycles, delta_turns, sdk_n = (
        (1, 10, 2000, 200, 500) if args.quick else (3, TURNS, 10000, 2000, 2000))
    figures: dict[str, Any] = {"bench": "contention", "quick": args.quick,
                               "workers": WORKERS}
    rows: list[list[Any]] = []
    with tempfile.TemporaryDirectory(prefix="bench-contention-") as tmp:
        root = Path(tmp)
        backends = {"sqlite": write_config(root, str(root / "contention.db"))}
        made = pg_schema(args.pg)
        if made is not None:
            backends["postgres"] = write_config(root, made[1])
        pool = Pool(root, WORKERS)
        try:
            for backend, config in backends.items():
                console.print(f"[bold]{backend}: opening {WORKERS} hosts[/]")
                pool.all({"op": "open", "backend": backend, "config": str(config),
                          "warm": 1 if args.quick else 3})
                for one in (True, False):
                    shape = "one" if one else "eight"
                    for lease in (True, False):
                        runs = []
                        for r in range(repeats):
                            tag = f"{backend}-{shape}-{lease}-{r}-{uuid.uuid4().hex[:4]}"
                            runs.append(pool.run(backend, lease, one, tag, turns))
                            if one and r == repeats - 1:
                                bad = await misordered(config, root, f"agent:main:one-{tag}")
                                figures[f"{backend}_{shape}_{'lease' if lease else 'nolease'}"
                                        "_misordered"] = bad
                        tps = median([x["tps"] for x in runs])
                        p99 = median([x["wait_p99_ms"] for x in runs])
                        name = f"{backend}_{shape}_{'lease' if lease else 'nolease'}"
                        figures[f"{name}_tps"] = round(tps, 1)
                        figures[f"{name}_wait_p99_ms"] = round(p99, 2)
                        rows.append([f"{backend}, {'1 session' if one else '8 sessions'}, "
                                     f"{'lease' if lease else 'no lease (peer)'}", tps, p99,
                                     median([x["wait_p50_ms"] for x in runs])])
        finally:
            pool.close()
            if made is not None:
                drop_schema(args.pg, made[0])
        console.print("[bold]uncontended cost (SQLite, one process)[/]")
        bare_us, leased_us = await slot_cycle_us(root / "cycle.db", cycles)
        turn_bare, turn_leased = await turn_delta_us(root, delta_turns)
        sdk_us = await sdk_session_us(root, sdk_n)
    figures["turns_per_worker"] = turns
    show(f"{WORKERS} processes x {turns} turns", ["scenario", "turns/s", "lease wait p99 ms",
                                    "lease wait p50 ms"], rows)
    show("uncontended, SQLite", ["measure", "µs"], [
        ["writer slot cycle, no lease", bare_us], ["writer slot cycle, lease", leased_us],
        ["turn median, no lease", turn_bare], ["turn median, lease", turn_leased],
        ["SDK SQLiteSession get_items + add_items", sdk_us]])
    cost = leased_us - bare_us
    figures.update({
        "lease_cost_us": round(cost, 1),
        "lease_cost_target_us": 1000,
        "turn_us_nolease": round(turn_bare, 1),
        "turn_us_lease": round(turn_leased, 1),
        "turn_delta_us": round(turn_leased - turn_bare, 1),
        "sdk_session_us": round(sdk_us, 1),
        "lease_cost_vs_sdk_session": round(cost / sdk_us, 3),
        "notes": "8 worker processes x turns_per_worker turns, in-process scripted model; *_tps = turns/s "
                 "from a common start to the last worker's end; *_wait_p99_ms = p99 of the "
                 "time a turn waited for its session (in process + store); peer = the same "
                 "workload with only the in-process queue (on one session it interleaves: "
                 "*_misordered); lease_cost_us = uncontended writer-slot cycle with the "
                 "lease minus without (SQLite); turn_delta_us = median turn with minus "
                 "without; lease_cost_vs_sdk_session = lease cost / the SDK's SQLiteSession "
                 "get_items+add_items per turn",
    })
    emit(figures)


if __name__ == "__main__":
    asyncio.run(main())
