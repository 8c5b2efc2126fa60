"""Benchmark: what running `exec` in the OS sandbox adds per command (issue 31, section 1).

Measured in the same run, the variants interleaved in every round so a change in load
hits them alike (wall-clock milliseconds, medians):

- `exec` tool calls of `true`, four ways (the two on the host alternate call by call):
  - on the host, as the tool is now (no sandbox);
  - on the host, as the tool was before the sandbox (`tools/builtin/exec.py` at
    `--peer-rev`, loaded from git history into a private module), so the unsandboxed
    path shows it did not regress;
  - under bubblewrap, as a fresh install runs it (network off: a new network namespace);
  - under bubblewrap with `network: true` (no network namespace), which shows what the
    network namespace itself costs;
- whole agent turns through `Host.run_turn` with an in-process scripted model asking for
  one `exec` call, with `sandbox.mode: "off"` and with the default sandbox.

Needs a working bubblewrap (`scripts/sandbox.sh` installs it); without one the sandboxed
figures are null and the JSON says why.

    .venv/bin/python bench/exec_sandbox.py [--quick] [--peer-rev REV]

The last line printed is one JSON object.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from types import ModuleType
from typing import Any

from _common import console, emit, median, show

from clawharness.config.schema import ClawConfig
from clawharness.harness.tool_spec import ToolCallContext
from clawharness.tools.builtin.exec import exec_tool
from clawharness.tools.sandbox.backends import backend_statuses
from clawharness.tools.sandbox.runner import SandboxService

ROOT = Path(__file__).resolve().parent.parent
#: the commit whose exec tool had no sandbox
PREVIOUS_REV = "32506b8"
#: modules moved since that commit: (old import, new import)
MOVED = (("clawharness.tools.workspace", "clawharness.harness.workspace"),)

SCRIPT = {"responses": [
    {"match": "^go", "repeat": True,
     "tool_calls": [{"name": "exec", "arguments": {"command": "true"}}]},
    {"match": ".", "repeat": True, "text": "done"},
]}


def load_previous_exec(rev: str) -> ModuleType | None:
    """The exec tool as it was at `rev`, or None without git history."""
    if shutil.which("git") is None:
        return None
    shown = subprocess.run(
        ["git", "-C", str(ROOT), "show", f"{rev}:src/clawharness/tools/builtin/exec.py"],
        capture_output=True, text=True, check=False)
    if shown.returncode != 0:
        return None
    source = shown.stdout
    for old, new in MOVED:
        source = source.replace(old, new)
    path = Path(tempfile.mkdtemp(prefix="exec-prev-")) / "previous_exec.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location("previous_exec", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["previous_exec"] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def context(workspace: Path) -> ToolCallContext:
    return ToolCallContext(call_id="c", workspace_dir=str(workspace), abort=asyncio.Event(),
                           session_key="agent:main:main", run_id="r")


def sandboxed_tool(state: Path, sandbox: dict[str, Any]) -> Any:
    config = ClawConfig.model_validate({"agents": {"defaults": {"sandbox": sandbox}}})
    return exec_tool(sandbox=SandboxService(config, state_dir=state).for_agent("main"))


async def calls_ms(execute: Callable[[], Awaitable[Any]], count: int) -> tuple[float, float]:
    """Median milliseconds of `count` calls: wall clock, and this process's CPU (the
    host's own work; a sandbox's setup runs in its child processes)."""
    wall, cpu = [], []
    for _ in range(count):
        started, used = time.perf_counter(), time.process_time()
        result = await execute()
        wall.append((time.perf_counter() - started) * 1000)
        cpu.append((time.process_time() - used) * 1000)
        assert not result.get("isError"), result
    return median(wall), median(cpu)


def rotated(names: list[str], round_index: int) -> list[str]:
    """The variants in a different order each round, so none always runs first."""
    shift = round_index % len(names)
    return names[shift:] + names[:shift]


async def tool_calls(root: Path, rounds: int, per_round: int,
                     sandboxed: bool) -> dict[str, float | None]:
    workspace = root / "ws"
    workspace.mkdir(parents=True, exist_ok=True)
    ctx = context(workspace)
    args = {"command": "true"}
    now_tool = exec_tool()
    variants: dict[str, Callable[[], Awaitable[Any]]] = {
        "host": lambda: now_tool.execute(args, ctx)}
    previous = load_previous_exec(ARGS.peer_rev)
    if previous is not None:
        old_tool = previous.exec_tool()
        variants["host_previous"] = lambda: old_tool.execute(args, ctx)
    if sandboxed:
        closed = sandboxed_tool(root / "state", {"backend": "bwrap"})
        opened = sandboxed_tool(root / "state", {"backend": "bwrap", "network": True})
        variants["bwrap"] = lambda: closed.execute(args, ctx)
        variants["bwrap_network_on"] = lambda: opened.execute(args, ctx)
    for execute in variants.values():  # warm: probes, first imports, page cache
        await calls_ms(execute, 3)
    samples: dict[str, list[float]] = {name: [] for name in variants}
    cpu: dict[str, list[float]] = {name: [] for name in variants}
    # the host's two versions differ by microseconds at most: compared call by call,
    # alternating, many times, so the load of a shared machine cannot tell them apart
    pairs = [name for name in ("host", "host_previous") if name in variants]
    for index in range(rounds * per_round * 2):
        for name in rotated(pairs, index):
            wall_ms, cpu_ms = await calls_ms(variants[name], 1)
            samples[name].append(wall_ms)
            cpu[name].append(cpu_ms)
    for index in range(rounds):
        for name in rotated([n for n in variants if n not in pairs], index):
            wall_ms, cpu_ms = await calls_ms(variants[name], per_round)
            samples[name].append(wall_ms)
            cpu[name].append(cpu_ms)
    found: dict[str, float | None] = {name: median(v) for name, v in samples.items()}
    found.update({f"{name}_cpu": median(v) for name, v in cpu.items()})
    found.setdefault("host_previous", None)
    found.setdefault("host_previous_cpu", None)
    found.setdefault("bwrap", None)
    found.setdefault("bwrap_network_on", None)
    return found


async def turn_host(root: Path, sandbox: dict[str, Any]) -> Any:
    from clawharness.host import Host

    workspace = root / "ws"
    workspace.mkdir(parents=True, exist_ok=True)
    config = {
        "models": {"providers": {"bench": {"api": "scripted", "models": [
            {"id": "m", "params": {"script": SCRIPT}}]}}},
        "agents": {"defaults": {"model": "bench/m", "workspace": str(workspace),
                                "sandbox": sandbox}},
        "tools": {"allow": ["exec"], "exec": {"security": "full", "ask": "off"}},
    }
    path = root / "config.json"
    path.write_text(json.dumps(config))
    host = Host.from_config(path, env={"CLAWHARNESS_STATE_DIR": str(root)},
                            store_url=str(root / "bench.db"))
    await host.start()
    return host


async def turns(root: Path, rounds: int, per_round: int,
                sandboxed: bool) -> dict[str, float | None]:
    hosts = {"off": await turn_host(root / "off", {"mode": "off"})}
    if sandboxed:
        hosts["bwrap"] = await turn_host(root / "bwrap", {"backend": "bwrap"})
    counter = 0

    def one(host: Any) -> Callable[[], Awaitable[Any]]:
        async def run() -> dict[str, Any]:
            nonlocal counter
            counter += 1
            result = await host.run_turn(f"agent:main:s{counter}", "go")
            assert result.text == "done" and result.tool_calls[0]["ok"], result
            return {}
        return run

    try:
        for host in hosts.values():
            await calls_ms(one(host), 3)
        samples: dict[str, list[float]] = {name: [] for name in hosts}
        for index in range(rounds):
            for name in rotated(list(hosts), index):
                samples[name].append((await calls_ms(one(hosts[name]), per_round))[0])
    finally:
        for host in hosts.values():
            await host.close()
    found: dict[str, float | None] = {name: median(v) for name, v in samples.items()}
    found.setdefault("bwrap", None)
    return found


def ratio(a: float | None, b: float | None) -> float | None:
    return round(a / b, 3) if a is not None and b else None


async def run() -> dict[str, Any]:
    status = backend_statuses(("bwrap",))["bwrap"]
    rounds, per_round = (5, 8) if ARGS.quick else (9, 30)
    with tempfile.TemporaryDirectory(prefix="bench-exec-sandbox-") as tmp:
        root = Path(tmp)
        calls = await tool_calls(root / "calls", rounds, per_round, status.available)
        turn = await turns(root / "turns", rounds, max(2, per_round // 2), status.available)
    host, previous, closed, opened = (calls["host"], calls["host_previous"], calls["bwrap"],
                                      calls["bwrap_network_on"])
    show("exec `true`: one tool call (median ms)", ["variant", "ms"], [
        ("host (now)", host), ("host (before the sandbox)", previous if previous else "n/a"),
        ("bwrap (network off)", closed if closed else "n/a"),
        ("bwrap (network on)", opened if opened else "n/a")])
    show("a turn with one exec call (median ms)", ["variant", "ms"], [
        ("sandbox off", turn["off"]), ("bwrap", turn["bwrap"] if turn["bwrap"] else "n/a")])
    return {
        "bench": "exec_sandbox", "quick": ARGS.quick, "bwrap": status.detail,
        "bwrap_available": status.available,
        "exec_host_ms": round(host or 0, 3),
        "exec_host_previous_ms": round(previous, 3) if previous else None,
        "exec_bwrap_ms": round(closed, 3) if closed else None,
        "exec_bwrap_network_on_ms": round(opened, 3) if opened else None,
        "sandbox_added_ms": round(closed - host, 3) if closed and host else None,
        "sandbox_ratio": ratio(closed, host),
        "host_vs_previous_ratio": ratio(host, previous),
        "exec_host_cpu_ms": round(calls["host_cpu"] or 0, 3),
        "exec_host_previous_cpu_ms": (round(calls["host_previous_cpu"], 3)
                                      if calls["host_previous_cpu"] else None),
        "host_vs_previous_cpu_ratio": ratio(calls["host_cpu"], calls["host_previous_cpu"]),
        "network_namespace_ms": round(closed - opened, 3) if closed and opened else None,
        "turn_off_ms": round(turn["off"] or 0, 3),
        "turn_bwrap_ms": round(turn["bwrap"], 3) if turn["bwrap"] else None,
        "turn_sandbox_ratio": ratio(turn["bwrap"], turn["off"]),
        # a shared machine's load moves every figure: said beside them
        "load_average_1m": round(os.getloadavg()[0], 2),
    }


def main() -> None:
    global ARGS
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--peer-rev", default=PREVIOUS_REV)
    ARGS = parser.parse_args()
    console.print(f"python {sys.version.split()[0]}")
    emit(asyncio.run(run()))


ARGS = argparse.Namespace(quick=True, peer_rev=PREVIOUS_REV)

if __name__ == "__main__":
    main()
