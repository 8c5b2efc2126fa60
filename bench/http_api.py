"""Per-turn latency of `POST /v1/chat/completions` through `clawharness serve`, beside the
original gateway's own OpenAI-compatible endpoint.

Both gateways run as subprocesses in the same run, on 127.0.0.1, with the endpoint
enabled (`gateway.http.endpoints.chatCompletions.enabled`), against one scripted model
server (`openai-completions`, a reply that comes at once, see bench/gateway.py), driven
by the same client (one `httpx.AsyncClient` connection per gateway, bearer token):
one cold request each, then N non-streaming requests (`model: "openclaw"`, one user
message, stateless: each its own session), the two gateways alternating request by
request so drift hits both alike. `latency_ratio` is ours / theirs on the median.

The original is `openclaw gateway run` from `.cache/openclaw` (Node 24), offline; its
start-up time (until `/v1/models` answers) is reported too. When it cannot be run, the
JSON says so (`original_error`) and `latency_ratio` is null.

    .venv/bin/python bench/http_api.py [--quick] [--turns N] [--skip-original]

The last line printed is one JSON object. (Named http_api.py, not http.py: every bench
script runs with bench/ first on sys.path, where an `http.py` would shadow the standard
library's `http` for all of them.)
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import console, emit, median, pct, show

from gateway import NODE, OPENCLAW, REPLY, ROOT, TOKEN, ModelEndpoint, free_port, model_server, stop

BODY = {"model": "openclaw", "messages": [{"role": "user", "content": "please reply"}]}


@dataclass
class Side:
    name: str
    base: str
    process: subprocess.Popen[bytes]
    startup_s: float = 0.0
    cold_ms: float = 0.0
    turns: list[float] = field(default_factory=list)
    client: httpx.AsyncClient | None = None


def start_ours(scratch: Path, model: ModelEndpoint) -> tuple[subprocess.Popen[bytes], str]:
    config = {
        "models": {"providers": {"scripted": {
            "baseUrl": model.base_url_openai, "api": "openai-completions", "apiKey": "x",
            "models": [{"id": "canned"}]}}},
        "agents": {"defaults": {"model": "scripted/canned"}},
        "gateway": {"port": 0, "auth": {"mode": "token", "token": TOKEN},
                    "http": {"endpoints": {"chatCompletions": {"enabled": True}}}},
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
    match = re.search(r"listening ws://(\S+)", line)
    if not match:
        stop(proc)
        raise RuntimeError(f"clawharness serve did not start: {line!r}")
    return proc, f"http://{match.group(1).rstrip('/')}"


def start_original(scratch: Path, model: ModelEndpoint) -> tuple[subprocess.Popen[bytes], str]:
    if not (NODE.exists() and OPENCLAW.exists()):
        raise RuntimeError(f"the original is not installed under {ROOT / '.cache/openclaw'}")
    port = free_port()
    home = scratch / "openclaw"
    home.mkdir()
    config = {
        "gateway": {"mode": "local", "port": port, "bind": "loopback",
                    "auth": {"mode": "token", "token": TOKEN},
                    "http": {"endpoints": {"chatCompletions": {"enabled": True}}}},
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
    return proc, f"http://127.0.0.1:{port}"


async def wait_ready(side: Side, started: float, deadline_s: float) -> None:
    """Poll `GET /v1/models` until it answers 200 (start-up), or fail."""
    assert side.client is not None
    deadline = time.monotonic() + deadline_s
    last: Any = None
    while time.monotonic() < deadline:
        if side.process.poll() is not None:
            raise RuntimeError(f"{side.name} exited with {side.process.returncode}")
        try:
            answer = await side.client.get(f"{side.base}/v1/models")
            if answer.status_code == 200:
                side.startup_s = time.perf_counter() - started
                return
            last = f"HTTP {answer.status_code}"
        except httpx.HTTPError as exc:
            last = exc
        await asyncio.sleep(0.1)
    raise RuntimeError(f"{side.name} at {side.base} not ready after {deadline_s}s: {last}")


async def one_turn(side: Side) -> float:
    assert side.client is not None
    started = time.perf_counter()
    answer = await side.client.post(f"{side.base}/v1/chat/completions", json=BODY)
    elapsed = (time.perf_counter() - started) * 1000
    if answer.status_code != 200:
        raise RuntimeError(f"{side.name}: HTTP {answer.status_code}: {answer.text[:300]}")
    content = answer.json()["choices"][0]["message"]["content"]
    if content != REPLY:
        raise RuntimeError(f"{side.name}: unexpected answer {content!r}")
    return elapsed


def _client() -> httpx.AsyncClient:
    return httpx.AsyncClient(headers={"authorization": f"Bearer {TOKEN}"}, timeout=120,
                             limits=httpx.Limits(max_connections=1))


async def run(args: argparse.Namespace, scratch: Path) -> dict[str, Any]:
    sides: list[Side] = []
    original_error: str | None = None
    with model_server(scratch) as model:
        try:
            started = time.perf_counter()
            proc, base = start_ours(scratch, model)
            ours = Side("ours", base, proc, client=_client())
            sides.append(ours)
            await wait_ready(ours, started, 60)
            if not args.skip_original:
                try:
                    started = time.perf_counter()
                    proc, base = start_original(scratch, model)
                    theirs = Side("original", base, proc, client=_client())
                    sides.append(theirs)
                    await wait_ready(theirs, started, 120)
                except RuntimeError as exc:
                    original_error = str(exc)
                    console.print(f"[yellow]the original could not be run: {exc}[/]")
                    if sides[-1].name == "original":
                        stop(sides.pop().process)
            for side in sides:
                side.cold_ms = await one_turn(side)
            for _ in range(args.turns):
                for side in sides:
                    side.turns.append(await one_turn(side))
        finally:
            for side in sides:
                if side.client is not None:
                    await side.client.aclose()
                stop(side.process)
    show(f"POST /v1/chat/completions: {args.turns} sequential requests (after 1 cold)",
         ["side", "start s", "cold ms", "p50 ms", "p90 ms", "min ms"],
         [[s.name, s.startup_s, s.cold_ms, median(s.turns), pct(s.turns, 90), min(s.turns)]
          for s in sides])
    ours = sides[0]
    figures: dict[str, Any] = {
        "bench": "http", "quick": args.quick, "turns": args.turns,
        "ours_median_ms": round(median(ours.turns), 2),
        "ours_p90_ms": round(pct(ours.turns, 90), 2),
        "ours_cold_ms": round(ours.cold_ms, 1), "ours_startup_s": round(ours.startup_s, 2),
        "latency_ratio": None,
        "notes": "non-streaming chat completions, one connection per side, scripted model "
                 "answering at once; latency_ratio = ours/original median per request",
    }
    if len(sides) > 1:
        theirs = sides[1]
        figures.update({
            "theirs_median_ms": round(median(theirs.turns), 2),
            "theirs_p90_ms": round(pct(theirs.turns, 90), 2),
            "theirs_cold_ms": round(theirs.cold_ms, 1),
            "theirs_startup_s": round(theirs.startup_s, 2),
            "latency_ratio": round(median(ours.turns) / median(theirs.turns), 4),
        })
    else:
        figures["original_error"] = original_error or "skipped (--skip-original)"
    return figures


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer requests")
    parser.add_argument("--turns", type=int, default=None, help="sequential requests per side")
    parser.add_argument("--skip-original", action="store_true")
    args = parser.parse_args(argv)
    args.turns = args.turns or (10 if args.quick else 40)
    with tempfile.TemporaryDirectory(prefix="bench-http-") as tmp:
        figures = asyncio.run(run(args, Path(tmp)))
    emit(figures)


if __name__ == "__main__":
    main()
