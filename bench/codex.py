"""The Codex harness's cost over a bare JSON-lines client of the same `codex app-server`.

Both sides drive the real app-server (the pinned binary in .cache/codex) against one
scripted model server on 127.0.0.1, in the same run, turns alternating (and which side
goes first alternating too) so drift and order effects hit both alike. Each side keeps
one process and one thread, with the same cwd, model, sandbox and approval policy; the
turn is the same scripted text turn. Measured:
  - per-turn wall time, bare client vs `CodexHarness.run_attempt` (binding lease on a
    SQLite store, pool slot, transcript mirror into memory, partial replies);
    `added_ms_per_turn` is the median of the paired differences (turn n of the harness
    minus turn n of the bare client, run back to back), `added_ms_p50_diff` the
    difference of the medians;
  - the harness's time outside the native turn: run_attempt's time before its
    `lifecycle start` event and after its `lifecycle end` event (lease, pool, binding,
    result), a floor for the added cost that Codex's own jitter does not blur;
  - time to the first partial reply (harness) and first delta (bare), from the call;
  - resident memory (VmRSS) of one live app-server process, and per idle session: the
    growth when more sessions (threads) are loaded into that process, divided by them.

The bare client sends the same `initialize` capabilities (incl. the harness's
notification opt-outs), so the difference is the harness's own work.

    .venv/bin/python bench/codex.py [--quick]

The last line printed is one JSON object.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

from _common import console, emit, median, pct, show

from clawharness.harness.capabilities import HostCapabilities
from clawharness.harness.types import AttemptParams, ResolvedModel
from clawharness.harnesses.codex.bindings import CodexBindings
from clawharness.harnesses.codex.config import AppServerConfig, build_env, render_config_toml
from clawharness.harnesses.codex.harness import CodexHarness
from clawharness.harnesses.codex.protocol import initialize_params
from clawharness.store.sqlite import SqliteStore
from clawharness.testing import ScriptedModelServer

ROOT = Path(__file__).resolve().parents[1]
CODEX = (ROOT / ".cache/codex/node_modules/@openai/codex-linux-x64/vendor/"
         "x86_64-unknown-linux-musl/bin/codex")
MODEL = "gpt-5.5"
SCRIPT = {"responses": [{"match": "ping", "repeat": True,
                         "text": "pong, a short scripted answer in a few streamed chunks"}]}


def offline(base_url: str) -> dict[str, Any]:
    return {"model_provider": "mock",
            "model_providers": {"mock": {
                "name": "scripted", "base_url": base_url, "wire_api": "responses",
                "env_key": "MOCK_OPENAI_API_KEY", "request_max_retries": 0,
                "stream_max_retries": 0, "supports_websockets": False}},
            "features": {"image_generation": False, "goals": False, "multi_agent": False}}


def rss_mb(pid: int) -> float:
    with open(f"/proc/{pid}/status") as fh:
        for line in fh:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


class AllowAll:
    def check(self, tool_name: str) -> str | None:
        return None

    def needs_approval(self, tool_name: str, arguments: Any) -> str | None:
        return None


# --- the bare client ----------------------------------------------------------------------


class Bare:
    """The least a client must do: write requests, read lines until turn/completed."""

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.p = process
        self.next_id = 1
        self.thread = ""

    @classmethod
    async def start(cls, config: AppServerConfig, home: Path, workspace: Path) -> Bare:
        home.mkdir(parents=True, exist_ok=True)
        (home / "config.toml").write_text(render_config_toml(config))
        process = await asyncio.create_subprocess_exec(
            str(CODEX), "app-server", stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL,
            env=build_env(config, str(home), str(CODEX)), cwd=str(home),
            limit=64 * 1024 * 1024)
        bare = cls(process)
        await bare.call("initialize", initialize_params("bench"))
        bare.send({"method": "initialized"})
        started = await bare.call("thread/start", {"cwd": str(workspace), "model": MODEL,
                                                   "approvalPolicy": "never",
                                                   "sandbox": "read-only"})
        bare.thread = started["thread"]["id"]
        return bare

    def send(self, message: dict[str, Any]) -> None:
        assert self.p.stdin is not None
        self.p.stdin.write(json.dumps(message).encode() + b"\n")

    async def call(self, method: str, params: dict[str, Any]) -> Any:
        request_id = self.next_id
        self.next_id += 1
        self.send({"id": request_id, "method": method, "params": params})
        assert self.p.stdout is not None
        while True:
            message = json.loads(await self.p.stdout.readline())
            if message.get("id") == request_id and "method" not in message:
                return message.get("result")

    async def turn(self, text: str) -> tuple[float, float]:
        """(turn seconds, seconds to the first delta)."""
        start = time.perf_counter()
        first = float("nan")
        result = await self.call("turn/start", {"threadId": self.thread, "input": [
            {"type": "text", "text": text, "text_elements": []}]})
        turn_id = result["turn"]["id"]
        assert self.p.stdout is not None
        while True:
            message = json.loads(await self.p.stdout.readline())
            method = message.get("method")
            if method == "item/agentMessage/delta" and first != first:
                first = time.perf_counter() - start
            elif method == "turn/completed" and message["params"]["turn"]["id"] == turn_id:
                return time.perf_counter() - start, first

    async def close(self) -> None:
        assert self.p.stdin is not None
        self.p.stdin.close()
        await self.p.wait()


# --- the harness ----------------------------------------------------------------------------


async def harness_turn(harness: CodexHarness, workspace: Path, session: str,
                       text: str) -> tuple[float, float, float]:
    run_id = str(uuid.uuid4())
    caps = HostCapabilities(run_id=run_id, session_key=session, workspace_dir=str(workspace),
                            policy=AllowAll(), approvals=None)
    mirrored: list[dict[str, Any]] = []
    first: list[float] = []

    async def mirror(messages: Any) -> None:
        mirrored.extend(messages)

    def partial(_text: str) -> None:
        if not first:
            first.append(time.perf_counter())

    lifecycle: list[float] = []

    def event(e: Any) -> None:
        if e.stream == "lifecycle":
            lifecycle.append(time.perf_counter())

    params = AttemptParams(
        run_id=run_id, session_key=session, session_id=f"sid-{session}", agent_id="bench",
        prompt=text, provider="openai", model_id=MODEL, model=ResolvedModel("openai", MODEL),
        workspace_dir=str(workspace), host_capabilities=caps, runtime_plan=None,
        mirror=mirror, on_partial_reply=partial, on_agent_event=event)
    start = time.perf_counter()
    result = await harness.run_attempt(params)
    end = time.perf_counter()
    assert result.terminal.kind == "ok", result.terminal
    outside = (lifecycle[0] - start) + (end - lifecycle[-1])
    return end - start, (first[0] - start) if first else float("nan"), outside


async def main(quick: bool) -> None:
    if not CODEX.exists():
        sys.exit(f"{CODEX} is missing: run scripts/native-runtimes.sh")
    turns = 12 if quick else 60
    idle_sessions = 4 if quick else 12
    warmup = 3
    with tempfile.TemporaryDirectory(dir=ROOT / ".cache") as tmp:
        root = Path(tmp)
        async with ScriptedModelServer(SCRIPT) as server:
            config = AppServerConfig(command=str(CODEX), env={"MOCK_OPENAI_API_KEY": "k"},
                                     config=offline(server.base_url_openai),
                                     approval_policy="never", sandbox="read-only",
                                     max_threads_per_process=idle_sessions + 2)
            store = SqliteStore(str(root / "bindings.db"))
            await store.open()
            harness = CodexHarness(config, bindings=CodexBindings(store),
                                   home_root=root / "homes")
            workspace = root / "ws"
            workspace.mkdir()
            bare = await Bare.start(config, root / "bare-home", workspace)
            bare_times: list[float] = []
            bare_first: list[float] = []
            ours_times: list[float] = []
            ours_first: list[float] = []
            outside: list[float] = []
            try:
                for n in range(warmup + turns):
                    # alternate who goes first: Codex finishes a turn's bookkeeping after
                    # turn/completed, which would otherwise always land on the same side
                    if n % 2 == 0:
                        b = await bare.turn(f"ping {n}")
                        o = await harness_turn(harness, workspace, "agent:bench:main",
                                               f"ping {n}")
                    else:
                        o = await harness_turn(harness, workspace, "agent:bench:main",
                                               f"ping {n}")
                        b = await bare.turn(f"ping {n}")
                    if n >= warmup:
                        bare_times.append(b[0])
                        bare_first.append(b[1])
                        ours_times.append(o[0])
                        ours_first.append(o[1])
                        outside.append(o[2])
                (proc,) = harness.pool.processes()
                one_session = rss_mb(proc.pid)
                for i in range(idle_sessions):
                    await harness_turn(harness, workspace, f"agent:bench:idle{i}", "ping")
                assert harness.pool.processes() == (proc,)
                with_idle = rss_mb(proc.pid)
                bare_rss = rss_mb(bare.p.pid)
            finally:
                await bare.close()
                await harness.dispose()
                await store.close()
    ms = 1000.0
    paired = [o - b for o, b in zip(ours_times, bare_times, strict=True)]
    added = median(paired) * ms
    rows = [
        ("bare JSON-lines client", median(bare_times) * ms, pct(bare_times, 90) * ms,
         median(bare_first) * ms),
        ("CodexHarness.run_attempt", median(ours_times) * ms, pct(ours_times, 90) * ms,
         median(ours_first) * ms),
    ]
    show(f"Codex text turn ({turns} each, alternating)",
         ["client", "p50 ms", "p90 ms", "first delta/partial ms"], rows)
    per_idle = (with_idle - one_session) / idle_sessions
    show("resident memory (VmRSS)", ["what", "MB"], [
        ("app-server process, 1 session (harness)", one_session),
        ("app-server process, 1 session (bare)", bare_rss),
        (f"per idle session ({idle_sessions} more threads)", per_idle)])
    console.print(f"added per turn: {added:.2f} ms (paired median; target < 5 ms); "
                  f"harness time outside the native turn: {median(outside) * ms:.2f} ms")
    emit({"added_ms_per_turn": round(added, 3),
          "added_ms_p50_diff": round((median(ours_times) - median(bare_times)) * ms, 3),
          "harness_outside_turn_ms": round(median(outside) * ms, 3),
          "bare_turn_ms_p50": round(median(bare_times) * ms, 3),
          "harness_turn_ms_p50": round(median(ours_times) * ms, 3),
          "first_partial_ms": round(median(ours_first) * ms, 3),
          "bare_first_delta_ms": round(median(bare_first) * ms, 3),
          "rss_mb_per_process": round(one_session, 1),
          "rss_mb_per_idle_session": round(per_idle, 2),
          "turns": turns, "cpus": os.cpu_count()})


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer turns")
    asyncio.run(main(parser.parse_args().quick))
