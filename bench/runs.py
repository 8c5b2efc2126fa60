"""Benchmark: what the run service costs per run, against the gateway's run manager it
replaced (issue 32, step 4).

Every front now starts its turns on `clawharness.runs.RunService`; the gateway turns its
typed events into `agent` and `chat` events with a listener (`GatewayRunEvents`). Before,
the gateway's own `RunManager` did both (`gateway/runs.py` at `--peer-rev`, loaded from
git history into a private module). Both run the same turns here, through the same
in-process host that streams what a real turn streams (a lifecycle start, assistant
text in `--deltas` steps, two tool events, usage, then its result), each run with one
subscriber (as an HTTP stream has) and the events fanned out to the WebSocket hub. The
two alternate round by round, so a change in load hits both alike; the figure is CPU
time per run (`time.process_time`), which the machine's other jobs move far less than
wall time.

    .venv/bin/python bench/runs.py [--quick] [--peer-rev REV] [--runs N] [--deltas N]

The last line printed is one JSON object.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import ModuleType
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import console, emit, median, show

from clawharness.attempt.turn import TurnOptions, TurnResult
from clawharness.gateway.approvals import ApprovalBroker, GatewayApprovalGate
from clawharness.gateway.hub import ConnectionHub
from clawharness.gateway.runs import GatewayRunEvents, outcome_of
from clawharness.harness.types import AgentEvent
from clawharness.runs import RunOptions, RunService

ROOT = Path(__file__).resolve().parents[1]
PREVIOUS_REV = "6478208"  # the commit before the run service


def previous_run_manager(rev: str) -> ModuleType | None:
    """`gateway/runs.py` as it was at `rev`, as a private module (None if git cannot)."""
    shown = subprocess.run(
        ["git", "-C", str(ROOT), "show", f"{rev}:src/clawharness/gateway/runs.py"],
        capture_output=True, text=True, check=False)
    if shown.returncode != 0:
        return None
    path = Path(tempfile.mkdtemp(prefix="bench-runs-")) / "previous_runs.py"
    path.write_text(shown.stdout)
    spec = importlib.util.spec_from_file_location("previous_runs", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["previous_runs"] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


class StreamingHost:
    """A host whose turn streams what a real one does, at no cost of its own."""

    def __init__(self, deltas: int) -> None:
        self.deltas = deltas

    async def run_turn(self, session_key: str | None, message: str,
                       options: TurnOptions | None = None) -> TurnResult:
        assert options is not None and options.on_agent_event is not None
        assert options.on_partial_reply is not None
        emit_event = options.on_agent_event
        emit_event(AgentEvent("lifecycle", {"phase": "start", "sessionId": "s-1"}))
        text = ""
        for i in range(self.deltas):
            text += f"word{i} "
            options.on_partial_reply(text)
        for step in ("start", "result"):
            emit_event(AgentEvent("tool", {"phase": step, "name": "read",
                                           "toolCallId": "call-1"}))
        emit_event(AgentEvent("usage", {"input": 120, "output": 40}))
        return TurnResult(session_key=session_key or "agent:main:main", session_id="s-1",
                          run_id=options.run_id or "r", runtime="openclaw",
                          selected_reason="bench", terminal="ok", text=text,
                          payloads=({"text": text},), duration_ms=1.0)


async def run_new(host: StreamingHost, hub: ConnectionHub, broker: ApprovalBroker,
                  runs: int, seen: list[int]) -> float:
    service = RunService(host, approvals=lambda agent: GatewayApprovalGate(broker, agent),
                         listeners=[GatewayRunEvents(hub)])
    started = time.process_time()
    for i in range(runs):
        run = service.start("agent:main:bench", "hi", RunOptions(
            agent_id="main", idempotency_key=f"n{i}", origin=None))
        run.subscribe(lambda _event: seen.append(1))
        outcome = outcome_of(run, await run.wait())
        assert outcome.ok
    return time.process_time() - started


async def run_old(module: ModuleType, host: StreamingHost, hub: ConnectionHub,
                  broker: ApprovalBroker, runs: int, seen: list[int]) -> float:
    manager = module.RunManager(host, hub, broker)

    def observer(_name: str, _payload: dict[str, Any]) -> None:
        seen.append(1)

    started = time.process_time()
    for i in range(runs):
        run, _new = manager.start(kind="agent", idempotency_key=f"o{i}",
                                  session_key="agent:main:bench", agent_id="main",
                                  message="hi", origin=None)
        run.observers.append(observer)
        outcome = await run.wait()
        assert outcome.ok
    return time.process_time() - started


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--peer-rev", default=PREVIOUS_REV)
    parser.add_argument("--runs", type=int, default=None, help="runs per side per round")
    parser.add_argument("--deltas", type=int, default=20)
    args = parser.parse_args()
    rounds = 5 if args.quick else 15
    runs = args.runs or (400 if args.quick else 1000)
    module = previous_run_manager(args.peer_rev)
    if module is None:
        raise SystemExit(f"git cannot show gateway/runs.py at {args.peer_rev}")
    host = StreamingHost(args.deltas)
    hub = ConnectionHub()
    broker = ApprovalBroker(hub.publish_approval)
    new_us: list[float] = []
    old_us: list[float] = []
    seen_new: list[int] = []
    seen_old: list[int] = []
    await run_new(host, hub, broker, 50, [])  # warm both
    await run_old(module, host, hub, broker, 50, [])
    for round_no in range(rounds):
        order = (("new", "old") if round_no % 2 == 0 else ("old", "new"))
        for side in order:
            if side == "new":
                new_us.append(await run_new(host, hub, broker, runs, seen_new) / runs * 1e6)
            else:
                old_us.append(await run_old(module, host, hub, broker, runs, seen_old)
                              / runs * 1e6)
    events_new = len(seen_new) // (rounds * runs)
    events_old = len(seen_old) // (rounds * runs)
    show("CPU per run (µs), median of rounds", ["side", "median", "min", "max", "events/run"],
         [["run service", median(new_us), min(new_us), max(new_us), events_new],
          [f"run manager @ {args.peer_rev}", median(old_us), min(old_us), max(old_us),
           events_old]])
    console.print(f"load average {os.getloadavg()[0]:.1f}")
    emit({"bench": "runs", "quick": args.quick, "peer_rev": args.peer_rev,
          "runs_per_round": runs, "rounds": rounds, "deltas": args.deltas,
          "ours_cpu_us_per_run": round(median(new_us), 1),
          "peer_cpu_us_per_run": round(median(old_us), 1),
          "cpu_ratio": round(median(new_us) / median(old_us), 3),
          "ours_events_per_run": events_new, "peer_observed_per_run": events_old,
          "load_average": round(os.getloadavg()[0], 1),
          "notes": "same streaming in-process host, one subscriber per run, events fanned "
                   "out to an empty WebSocket hub; cpu_ratio = run service / previous "
                   "run manager, CPU time per run"})


if __name__ == "__main__":
    asyncio.run(main())
