"""Start-up: how long `clawharness` commands take, beside OpenClaw's own CLI, and what a
one-line `clawharness agent` turn adds over the same turn through a running `serve`.

Each command runs as a new process, as a user runs it, wall time from spawn to exit:

  - `clawharness --version`, `--help` beside `openclaw --version`, `--help` (the pinned
    CLI in `.cache/openclaw` on its Node 24, which `scripts/native-runtimes.sh`
    installs), with a ratio each (ours / theirs);
  - `config validate`, `sessions list`, `status` on a config whose model is the scripted
    model server (`openai-responses`) and whose SQLite store holds a few sessions;
  - `agent -m hello --session NEW` (a one-line turn on the scripted model server) with a
    `clawharness serve` of the same config running, so the command sends the turn there
    (its default path, docs/cli.md), beside the same turn sent to that `serve` over its
    gateway protocol (`clawharness.gateway.client`, one connection, a new session per
    turn): the difference is what a command-line turn adds. `agent --local` (the turn
    embedded in the command's own process) is timed beside them. The bench checks that
    the server ran every default-path turn (its `agent` events name their sessions).

Every command is run once untimed first (Python writes its bytecode caches then, as a
pip install does at install time: `PYTHONDONTWRITEBYTECODE` is cleared for the commands),
then the commands take turns, round by round, so drift on a shared machine hits all
alike. Figures are medians (and minimums) of the rounds.

    .venv/bin/python bench/startup.py [--quick] [--rounds N]

Targets (issue 35): `--version`, `--help` <= 0.15 s; `config validate`, `sessions list`,
`status` <= 0.4 s; the agent turn adds <= 0.3 s over serve's. The last line printed is
one JSON object. CPU seconds (user + system of the command's process) are shown beside
the wall times: on a shared machine they move less.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import re
import resource
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import console, emit, median, show

from clawharness.gateway.client import GatewayClient

ROOT = Path(__file__).resolve().parents[1]
CLAWHARNESS = Path(sys.executable).parent / "clawharness"
NODE = ROOT / ".cache/openclaw/node_modules/node/bin/node"
OPENCLAW = ROOT / ".cache/openclaw/node_modules/openclaw/openclaw.mjs"
TOKEN = "bench-startup-token"
SCRIPT = {"responses": [{"match": "hello", "repeat": True, "text": "Hello from the script."}]}
#: the issue's targets, in seconds
TARGETS = {"version": 0.15, "help": 0.15, "config_validate": 0.4, "sessions_list": 0.4,
           "status": 0.4}
AGENT_OVERHEAD_TARGET = 0.3


def bench_env(home: Path) -> dict[str, str]:
    """The environment of every command: no inherited config, bytecode caches written,
    a HOME of its own (the original keeps state under ~/.openclaw)."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("CLAWHARNESS_", "OTEL_", "OPENCLAW_"))
           and k != "PYTHONDONTWRITEBYTECODE"}
    env.update(HOME=str(home), NO_COLOR="1", COLUMNS="100")
    return env


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed(argv: Sequence[str], env: dict[str, str]) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of one run: on a shared machine the wall time also
    holds the waits for a core, the CPU time (user + system) does not."""
    cpu = _children_cpu()
    started = time.perf_counter()
    done = subprocess.run(list(argv), env=env, capture_output=True, timeout=300, check=False)
    elapsed = time.perf_counter() - started
    used = _children_cpu() - cpu
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)} exited {done.returncode}: "
                           f"{done.stderr.decode(errors='replace')[-600:]}")
    return elapsed, used


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextlib.contextmanager
def process(argv: Sequence[str], env: dict[str, str], ready: str,
            timeout: float = 120) -> Iterator[tuple[subprocess.Popen[str], str]]:
    """A background process (its own process group), once it printed a line matching
    `ready`: (the process, that line). Stopped on exit, by its id."""
    proc = subprocess.Popen(list(argv), env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, start_new_session=True)
    try:
        assert proc.stdout is not None
        deadline = time.monotonic() + timeout
        line = ""
        while not re.search(ready, line):
            line = proc.stdout.readline()
            if not line and proc.poll() is not None:
                raise RuntimeError(f"{' '.join(argv)} exited {proc.returncode} before ready")
            if time.monotonic() > deadline:
                raise RuntimeError(f"{' '.join(argv)}: not ready in {timeout}s")
        yield proc, line
    finally:
        if proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(15)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(5)


def write_config(folder: Path, base_url: str) -> Path:
    path = folder / "config.json"
    path.write_text(json.dumps({
        "models": {"providers": {"scripted": {
            "baseUrl": base_url, "api": "openai-responses", "apiKey": "offline",
            "models": [{"id": "m"}]}}},
        "agents": {"defaults": {"model": "scripted/m", "workspace": str(folder / "ws")}},
        "store": {"url": str(folder / "state.db")},
        "gateway": {"auth": {"mode": "token", "token": TOKEN}},
    }))
    return path


class ServeTurns:
    """Turns sent to a running `clawharness serve` over one gateway connection, whose
    event loop runs in a thread of its own (so the connection answers the server's pings
    while the other commands run)."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self.client: GatewayClient | None = None
        self.count = 0
        self.events: asyncio.Queue[dict[str, Any]] | None = None

    def _run(self, coro: Any) -> Any:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout=300)

    def connect(self, deadline_s: float = 60) -> None:
        async def go() -> GatewayClient:
            deadline = time.monotonic() + deadline_s
            while True:
                try:
                    return await GatewayClient.connect(self.url, token=TOKEN, open_timeout=5)
                except Exception:
                    if time.monotonic() > deadline:
                        raise
                    await asyncio.sleep(0.1)
        self.client = self._run(go())

        async def subscribe() -> None:
            assert self.client is not None
            self.events = self.client.events()
            await self.client.request("sessions.subscribe", {})
        self._run(subscribe())

    def sessions_run(self) -> set[str]:
        """The session keys of every turn the server ran since `connect` (their `agent`
        events, up to those of a turn sent now, which come last)."""
        self.turn()
        last = f"agent:main:bench-serve-{self.count}"

        async def go() -> set[str]:
            assert self.events is not None
            seen: set[str] = set()
            while last not in seen:
                frame = await asyncio.wait_for(self.events.get(), 60)
                key = (frame.get("payload") or {}).get("sessionKey")
                if frame.get("event") == "agent" and isinstance(key, str):
                    seen.add(key)
            return seen
        return set(self._run(go()))

    def turn(self) -> float:
        assert self.client is not None
        client = self.client
        self.count += 1
        key = f"agent:main:bench-serve-{self.count}"

        async def go() -> tuple[float, Any]:
            started = time.perf_counter()
            _accepted, final = await client.agent("hello", agentId="main", sessionKey=key,
                                                  timeout=120)
            return time.perf_counter() - started, final

        elapsed, final = self._run(go())
        if final.get("status") != "ok":
            raise RuntimeError(f"serve turn: {final}")
        return float(elapsed)

    def close(self) -> None:
        if self.client is not None:
            self._run(self.client.close())
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)
        self.loop.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("--quick", action="store_true", help="3 rounds (under a minute on a quiet machine)")
    parser.add_argument("--rounds", type=int, default=None, help="timed rounds (default 15)")
    parser.add_argument("--clawharness", type=Path, default=CLAWHARNESS, metavar="PATH",
                        help="the clawharness executable to time (default: this venv's; "
                             "e.g. another checkout's, for a before/after)")
    args = parser.parse_args()
    rounds = args.rounds or (3 if args.quick else 15)
    if not args.clawharness.exists():
        raise SystemExit(f"{args.clawharness} is missing: run scripts/setup.sh")
    have_openclaw = NODE.exists() and OPENCLAW.exists()
    if not have_openclaw:
        console.print("[yellow]the openclaw CLI is not in .cache/openclaw (run "
                      "scripts/native-runtimes.sh): measuring clawharness alone[/]")

    with tempfile.TemporaryDirectory(prefix="bench-startup-") as scratch:
        folder = Path(scratch)
        (folder / "home").mkdir()
        (folder / "script.json").write_text(json.dumps(SCRIPT))
        env = bench_env(folder / "home")
        ours = str(args.clawharness)
        with process([ours, "model-server", "--script", str(folder / "script.json")], env,
                     r"listening on http://") as (_model, line):
            url = re.search(r"listening on (http://\S+)", line)
            assert url is not None
            config = write_config(folder, url.group(1) + "/v1")
            env["CLAWHARNESS_CONFIG"] = str(config)
            commands: dict[str, list[str]] = {
                "version": [ours, "--version"],
                "help": [ours, "--help"],
                "config_validate": [ours, "config", "validate"],
                "sessions_list": [ours, "sessions", "list"],
                "status": [ours, "status"],
            }
            if have_openclaw:
                commands["openclaw_version"] = [str(NODE), str(OPENCLAW), "--version"]
                commands["openclaw_help"] = [str(NODE), str(OPENCLAW), "--help"]
            cli_turns = 0
            via_serve: list[str] = []

            def cli_turn(local: bool) -> tuple[float, float]:
                nonlocal cli_turns
                cli_turns += 1
                session = f"cli-{cli_turns}"
                if not local:
                    via_serve.append(f"agent:main:{session}")
                return timed([ours, "agent", "-m", "hello", "--session", session,
                              *(["--local"] if local else [])], env)

            # untimed: bytecode caches, the OS's file cache, a few sessions in the store
            console.print("warming up (every command once, untimed)")
            for argv in commands.values():
                timed(argv, env)
            for _ in range(3):
                cli_turn(local=True)

            port = free_port()
            with process([ours, "serve", "--port", str(port), "--token", TOKEN], env,
                         r"listening ws://"):
                serve = ServeTurns(f"ws://127.0.0.1:{port}")
                try:
                    serve.connect()
                    serve.turn()  # the server's first turn imports the model SDK
                    cli_turn(local=False)  # untimed: the thin path's bytecode
                    times: dict[str, list[float]] = {name: [] for name in commands}
                    cpus: dict[str, list[float]] = {name: [] for name in commands}
                    for name in ("agent_cli", "agent_local"):
                        times[name], cpus[name] = [], []
                    times["agent_serve"] = []
                    for index in range(rounds):
                        console.print(f"round {index + 1}/{rounds}")
                        for name, argv in commands.items():
                            wall, cpu = timed(argv, env)
                            times[name].append(wall)
                            cpus[name].append(cpu)
                        for name, local in (("agent_cli", False), ("agent_local", True)):
                            wall, cpu = cli_turn(local)
                            times[name].append(wall)
                            cpus[name].append(cpu)
                        times["agent_serve"].append(serve.turn())
                    missed = set(via_serve) - serve.sessions_run()
                    if missed:
                        raise RuntimeError(f"these `agent` turns did not go through serve: "
                                           f"{sorted(missed)}")
                finally:
                    serve.close()

    med = {name: median(values) for name, values in times.items()}
    low = {name: min(values) for name, values in times.items()}
    cpu_med = {name: median(values) for name, values in cpus.items()}
    figures: dict[str, Any] = {"rounds": rounds, "openclaw": have_openclaw}
    rows = []
    for name in ("version", "help", "config_validate", "sessions_list", "status"):
        peer = med.get(f"openclaw_{name}")
        ratio = med[name] / peer if peer else None
        figures[f"{name}_s"] = round(med[name], 4)
        figures[f"{name}_min_s"] = round(low[name], 4)
        figures[f"{name}_cpu_s"] = round(cpu_med[name], 4)
        figures[f"{name}_target_met"] = med[name] <= TARGETS[name]
        if peer is not None:
            figures[f"openclaw_{name}_s"] = round(peer, 4)
            figures[f"{name}_ratio"] = round(ratio, 3) if ratio is not None else None
        rows.append((name.replace("_", " "), med[name], low[name], cpu_med[name],
                     TARGETS[name], "-" if peer is None else peer,
                     "-" if ratio is None else ratio))
    overhead = med["agent_cli"] - med["agent_serve"]
    local_overhead = med["agent_local"] - med["agent_serve"]
    figures.update(agent_cli_s=round(med["agent_cli"], 4),
                   agent_cli_min_s=round(low["agent_cli"], 4),
                   agent_cli_cpu_s=round(cpu_med["agent_cli"], 4),
                   agent_local_s=round(med["agent_local"], 4),
                   agent_local_min_s=round(low["agent_local"], 4),
                   agent_local_cpu_s=round(cpu_med["agent_local"], 4),
                   agent_serve_s=round(med["agent_serve"], 4),
                   agent_overhead_s=round(overhead, 4),
                   agent_local_overhead_s=round(local_overhead, 4),
                   agent_overhead_target_met=overhead <= AGENT_OVERHEAD_TARGET)
    rows.append(("agent turn (CLI)", med["agent_cli"], low["agent_cli"], cpu_med["agent_cli"],
                 med["agent_serve"] + AGENT_OVERHEAD_TARGET, "-", "-"))
    rows.append(("agent --local", med["agent_local"], low["agent_local"],
                 cpu_med["agent_local"], "-", "-", "-"))
    rows.append(("same turn via serve", med["agent_serve"], low["agent_serve"], "-", "-", "-",
                 "-"))
    show(f"start-up, wall seconds (median of {rounds} rounds)",
         ["command", "median s", "min s", "CPU s", "target s", "openclaw s", "ours / openclaw"],
         rows)
    console.print(f"an agent turn on the command line adds {overhead:.3f} s over serve's "
                  f"(target {AGENT_OVERHEAD_TARGET} s); with --local (embedded) "
                  f"{local_overhead:.3f} s")
    emit(figures)


if __name__ == "__main__":
    main()
