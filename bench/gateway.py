"""Per-turn latency through `clawharness serve` beside OpenClaw's own gateway, and turns/s.

Both gateways run as subprocesses in the same run, on 127.0.0.1, against one scripted
model server (`openai-completions`, a reply that comes at once), driven by the same
Python client (`clawharness.gateway.client`, the protocol v4 handshake with a token):

  - latency: one connection per gateway, one warm-up (cold) turn each, then N sequential
    `agent` turns on one session, the two gateways alternating turn by turn so drift hits
    both alike. Per turn: time to `accepted`, to the first `chat` delta, to the final
    answer. `latency_ratio` is ours / theirs on the median final time;
  - throughput: 100 concurrent clients, each its own connection and session, each doing
    T sequential turns; turns/s = all turns / wall time (the original too unless
    `--quick` or `--skip-original-throughput`).

The original is `openclaw gateway run` from `.cache/openclaw` (Node 24), offline, with
its log file in the scratch folder; its start-up time is reported too.

    .venv/bin/python bench/gateway.py [--quick] [--turns N] [--clients C]

The last line printed is one JSON object.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import console, emit, median, pct, show

from clawharness.gateway.client import GatewayClient
from clawharness.testing import ScriptedModelServer

ROOT = Path(__file__).resolve().parents[1]
NODE = ROOT / ".cache/openclaw/node_modules/node/bin/node"
OPENCLAW = ROOT / ".cache/openclaw/node_modules/openclaw/openclaw.mjs"
TOKEN = "bench-token"
REPLY = "Canned reply."


@dataclass
class Side:
    name: str
    url: str
    process: subprocess.Popen[bytes]
    startup_s: float
    handshake_ms: float = 0.0
    cold_ms: float = 0.0
    accepted: list[float] = field(default_factory=list)
    first_delta: list[float] = field(default_factory=list)
    final: list[float] = field(default_factory=list)
    turns_per_s: float | None = None
    failures: int = 0
    connect_retries: int = 0


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def stop(proc: subprocess.Popen[bytes]) -> None:
    """Stop a gateway this bench started: its own process group, by id."""
    if proc.poll() is not None:
        return
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGTERM)
    try:
        proc.wait(15)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(5)


async def wait_ready(url: str, deadline_s: float) -> None:
    """Poll until a handshake succeeds (start-up), or fail after `deadline_s`."""
    deadline = time.monotonic() + deadline_s
    last: BaseException | None = None
    while time.monotonic() < deadline:
        try:
            client = await GatewayClient.connect(url, token=TOKEN, open_timeout=5)
        except (TimeoutError, OSError, Exception) as exc:
            last = exc
            await asyncio.sleep(0.25)
            continue
        await client.close()
        return
    raise RuntimeError(f"gateway at {url} not ready after {deadline_s}s: {last}")


def start_ours(scratch: Path, model: ModelEndpoint) -> tuple[subprocess.Popen[bytes], str]:
    config = {
        "models": {"providers": {"scripted": {
            "baseUrl": model.base_url_openai, "api": "openai-completions", "apiKey": "x",
            "models": [{"id": "canned"}]}}},
        "agents": {"defaults": {"model": "scripted/canned"}},
        "gateway": {"port": 0, "auth": {"mode": "token", "token": TOKEN}},
    }
    path = scratch / "clawharness.json"
    path.write_text(json.dumps(config))
    log = (scratch / "clawharness-serve.log").open("wb")
    proc = subprocess.Popen(
        [sys.executable, "-m", "clawharness", "serve", "--config", str(path), "--port", "0"],
        env={**os.environ, "CLAWHARNESS_STATE_DIR": str(scratch / "clawharness-state"),
             "PYTHONUNBUFFERED": "1"},
        stdout=subprocess.PIPE, stderr=log, start_new_session=True)
    assert proc.stdout is not None
    line = proc.stdout.readline().decode()
    match = re.search(r"listening (ws://\S+)", line)
    if not match:
        stop(proc)
        raise RuntimeError(f"clawharness serve did not start: {line!r}")
    return proc, match.group(1)


def start_original(scratch: Path, model: ModelEndpoint) -> tuple[subprocess.Popen[bytes], str]:
    if not (NODE.exists() and OPENCLAW.exists()):
        raise RuntimeError(f"the original is not installed under {ROOT / '.cache/openclaw'}")
    port = free_port()
    home = scratch / "openclaw"
    home.mkdir()
    config = {
        "gateway": {"mode": "local", "port": port, "bind": "loopback",
                    "auth": {"mode": "token", "token": TOKEN}},
        "models": {"providers": {"fake": {
            "baseUrl": model.base_url_openai, "api": "openai-completions", "apiKey": "x",
            "models": [{"id": "canned", "name": "canned"}]}}},
        "agents": {"defaults": {"model": {"primary": "fake/canned"}}},
        "logging": {"file": str(home / "gateway.log")},
    }
    (home / "openclaw.json").write_text(json.dumps(config))
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENCLAW_")}
    env.update({"OPENCLAW_HOME": str(home), "OPENCLAW_STATE_DIR": str(home / "state"),
                "OPENCLAW_CONFIG_PATH": str(home / "openclaw.json"), "NO_COLOR": "1",
                "TMPDIR": str(scratch)})
    out = (home / "stdout.log").open("wb")
    proc = subprocess.Popen([str(NODE), str(OPENCLAW), "gateway", "run", "--port", str(port)],
                            env=env, stdout=out, stderr=subprocess.STDOUT, cwd=home,
                            start_new_session=True)
    return proc, f"ws://127.0.0.1:{port}"


async def one_turn(client: GatewayClient, session: str,
                   events: asyncio.Queue[dict[str, Any]]) -> tuple[float, float, float]:
    """(ms to accepted, ms to first chat delta, ms to final) for one `agent` turn."""
    key = f"bench-{uuid.uuid4()}"
    first: list[float] = []

    async def watch() -> None:
        while True:
            frame = await events.get()
            payload = frame.get("payload") or {}
            if (not first and frame.get("event") == "chat" and payload.get("state") == "delta"
                    and payload.get("runId") in (key, accepted_run_id())):
                first.append(time.perf_counter())

    def accepted_run_id() -> str | None:
        return call.accepted.result()["runId"] if call.accepted.done() else None

    watcher = asyncio.create_task(watch())
    started = time.perf_counter()
    call = client.start_agent("please reply", idempotency_key=key, agentId="main",
                              sessionKey=session)
    try:
        async with asyncio.timeout(120):
            await call.accepted
            accepted_ms = (time.perf_counter() - started) * 1000
            final = await call.final
            total = (time.perf_counter() - started) * 1000
            while not events.empty():  # frames already received before the final answer
                await asyncio.sleep(0)
    finally:
        watcher.cancel()
    first_ms = (first[0] - started) * 1000 if first else float("nan")
    text = ((final.get("result") or {}).get("payloads") or [{}])[0].get("text")
    if final.get("status") != "ok" or text != REPLY:
        raise RuntimeError(f"unexpected final: {final}")
    return accepted_ms, first_ms, total


async def latency(sides: list[Side], turns: int) -> None:
    clients: dict[str, tuple[GatewayClient, asyncio.Queue[dict[str, Any]]]] = {}
    for side in sides:
        started = time.perf_counter()
        client = await GatewayClient.connect(side.url, token=TOKEN)
        side.handshake_ms = (time.perf_counter() - started) * 1000
        clients[side.name] = (client, client.events())
        _a, _f, side.cold_ms = await one_turn(client, "agent:main:bench-latency",
                                              clients[side.name][1])
    for index in range(turns):
        order = sides if index % 2 == 0 else list(reversed(sides))
        for side in order:
            client, events = clients[side.name]
            while not events.empty():
                events.get_nowait()
            accepted, first, total = await one_turn(client, "agent:main:bench-latency", events)
            side.accepted.append(accepted)
            side.first_delta.append(first)
            side.final.append(total)
    for client, _events in clients.values():
        await client.close()


async def throughput(side: Side, clients: int, turns_each: int) -> None:
    """`clients` connections at once, each running `turns_each` turns on its own session."""
    errors: list[str] = []

    async def worker(index: int) -> int:
        done = 0
        client = None
        deadline = time.monotonic() + 120
        while client is None:  # a refused connect (the original answers HTTP 503 when too
            try:               # many handshakes are pending) is retried, as clients do
                client = await GatewayClient.connect(side.url, token=TOKEN, open_timeout=60)
            except Exception as exc:
                side.connect_retries += 1
                if time.monotonic() > deadline:
                    errors.append(f"connect: {type(exc).__name__}: {exc}")
                    return 0
                await asyncio.sleep(0.2 + 0.3 * (index % 5))
        try:
            for _ in range(turns_each):
                try:
                    _acc, final = await client.agent("please reply", agentId="main",
                                                     sessionKey=f"agent:main:bench-c{index}",
                                                     timeout=300)
                except Exception as exc:
                    errors.append(f"{type(exc).__name__}: {exc}")
                    continue
                if final.get("status") == "ok":
                    done += 1
                else:
                    errors.append(f"status {final.get('status')}: {final.get('summary')}")
            return done
        finally:
            await client.close()

    started = time.perf_counter()
    completed = sum(await asyncio.gather(*(worker(i) for i in range(clients))))
    elapsed = time.perf_counter() - started
    side.failures = clients * turns_each - completed
    side.turns_per_s = completed / elapsed if elapsed > 0 else None
    if errors:
        console.print(f"{side.name}: {len(errors)} failed turns, e.g. {sorted(set(errors))[:3]}")


@dataclass
class ModelEndpoint:
    """The scripted model's app, served by uvicorn on a port it binds itself."""

    base_url_openai: str


@contextlib.contextmanager
def model_server(scratch: Path) -> Iterator[ModelEndpoint]:
    """Serve `ScriptedModelServer.app` (a reply that comes at once) from a thread.

    uvicorn binds the port itself here: `ScriptedModelServer.start()` hands uvicorn a
    socket made with protocol 0, so asyncio does not set TCP_NODELAY on its connections
    and every request on a kept-alive connection waits ~40 ms for a delayed ACK. That
    delay is the test server's, not a gateway's; it would be added to both sides.
    """
    import threading

    import uvicorn

    script = scratch / "script.json"
    script.write_text(json.dumps({"responses": [{"text": REPLY, "match": ".", "repeat": True}]}))
    app = ScriptedModelServer(script).app
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, http="h11",
                                           ws="none", lifespan="off", log_config=None,
                                           access_log=False))
    thread = threading.Thread(target=server.run, name="bench-model", daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("the scripted model server did not start")
        time.sleep(0.01)
    try:
        yield ModelEndpoint(f"http://127.0.0.1:{port}/v1")
    finally:
        server.should_exit = True
        thread.join(10)


async def run(args: argparse.Namespace, scratch: Path) -> dict[str, Any]:
    with model_server(scratch) as model:
        started = time.perf_counter()
        ours_proc, ours_url = start_ours(scratch, model)
        procs = [ours_proc]
        try:
            await wait_ready(ours_url, 60)
            ours = Side("ours", ours_url, ours_proc, time.perf_counter() - started)
            sides = [ours]
            theirs: Side | None = None
            if not args.skip_original:
                started = time.perf_counter()
                their_proc, their_url = start_original(scratch, model)
                procs.append(their_proc)
                await wait_ready(their_url, 120)
                theirs = Side("original", their_url, their_proc, time.perf_counter() - started)
                sides.append(theirs)
            console.print("start-up: " + ", ".join(f"{s.name} {s.startup_s:.1f}s" for s in sides))
            await latency(sides, args.turns)
            await throughput(ours, args.clients, args.turns_per_client)
            if theirs is not None and not args.quick and not args.skip_original_throughput:
                await throughput(theirs, args.clients, args.turns_per_client)
        finally:
            for proc in procs:
                stop(proc)
    rows = []
    for side in sides:
        rows.append([side.name, side.startup_s, side.handshake_ms, side.cold_ms,
                     median(side.accepted), median(side.first_delta), median(side.final),
                     pct(side.final, 90), side.turns_per_s if side.turns_per_s else "-"])
    show(f"gateway: {args.turns} sequential turns (after 1 cold), {args.clients} clients x "
         f"{args.turns_per_client} turns", ["side", "start s", "handshake ms", "cold ms",
                                             "accepted ms", "1st delta ms", "final ms p50",
                                             "final ms p90", "turns/s"], rows)
    figures: dict[str, Any] = {
        "ours_median_ms": round(median(ours.final), 2),
        "ours_p90_ms": round(pct(ours.final, 90), 2),
        "ours_accepted_ms": round(median(ours.accepted), 2),
        "ours_first_delta_ms": round(median(ours.first_delta), 2),
        "ours_handshake_ms": round(ours.handshake_ms, 2),
        "ours_cold_ms": round(ours.cold_ms, 1),
        "ours_startup_s": round(ours.startup_s, 2),
        "ours_turns_per_s": round(ours.turns_per_s or 0.0, 1),
        "ours_failures": ours.failures,
        "ours_connect_retries": ours.connect_retries,
        "clients": args.clients, "turns": args.turns, "turns_per_client": args.turns_per_client,
    }
    if theirs is not None:
        figures.update({
            "theirs_median_ms": round(median(theirs.final), 2),
            "theirs_p90_ms": round(pct(theirs.final, 90), 2),
            "theirs_accepted_ms": round(median(theirs.accepted), 2),
            "theirs_first_delta_ms": round(median(theirs.first_delta), 2),
            "theirs_handshake_ms": round(theirs.handshake_ms, 2),
            "theirs_cold_ms": round(theirs.cold_ms, 1),
            "theirs_startup_s": round(theirs.startup_s, 2),
            "latency_ratio": round(median(ours.final) / median(theirs.final), 4),
        })
        if theirs.turns_per_s is not None:
            figures["theirs_turns_per_s"] = round(theirs.turns_per_s, 1)
            figures["theirs_failures"] = theirs.failures
            figures["theirs_connect_retries"] = theirs.connect_retries
    else:
        figures["latency_ratio"] = None
    return figures


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer turns; ours only for turns/s")
    parser.add_argument("--turns", type=int, default=None, help="sequential turns per side")
    parser.add_argument("--clients", type=int, default=100)
    parser.add_argument("--turns-per-client", type=int, default=None)
    parser.add_argument("--skip-original", action="store_true")
    parser.add_argument("--skip-original-throughput", action="store_true")
    args = parser.parse_args(argv)
    args.turns = args.turns or (5 if args.quick else 20)
    args.turns_per_client = args.turns_per_client or (2 if args.quick else 5)
    with tempfile.TemporaryDirectory(prefix="bench-gateway-") as tmp:
        figures = asyncio.run(run(args, Path(tmp)))
    emit(figures)


if __name__ == "__main__":
    main()
