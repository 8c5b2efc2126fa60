"""What the host adds to an MCP tool call, beside a bare `mcp` `ClientSession.call_tool`.

Both sides call `echo` on the same stdio server (`@modelcontextprotocol/server-everything`
from .cache/, installed by scripts/native-runtimes.sh), each over its own session:

  - ours: a built-in runtime turn (in-process scripted model, no HTTP) whose model asks
    for `everything__echo`; a call is timed from the runtime's `tool` start event to its
    `tool` result event, so it holds everything the host does around the call: the tool
    policy and approval check, the catalog's spec, the SDK request, result mapping, the
    terminal observer, middleware, and the tool-result message's settlement (mirrored);
  - bare: `await session.call_tool("echo", ...)` on a `ClientSession` of its own.

Blocks of calls alternate between the two sides, so a loaded machine slows both alike.
`added_ms_per_call` is ours p50 minus bare p50 (target: under 1 ms).

    python bench/mcp_tool_call.py [--quick]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import tempfile
import time
from pathlib import Path
from typing import Any

from _common import console, emit, median, pct, show

ROOT = Path(__file__).resolve().parents[1]
SERVER = ROOT / ".cache/mcp-everything/node_modules/.bin/mcp-server-everything"
SCRIPT = {"responses": [
    {"match": "Echo: bench", "repeat": True, "text": "done"},
    {"match": "^go", "repeat": True,
     "tool_calls": [{"name": "everything__echo", "arguments": {"message": "bench"}}]},
]}


async def ours(root: Path, calls: int, block: int, bare_times: list[float],
               bare_session: Any, ours_times: list[float], turn_times: list[float]) -> None:
    from clawharness.attempt.turn import TurnOptions
    from clawharness.harness.types import AgentEvent
    from clawharness.host import Host

    config = {
        "models": {"providers": {"bench": {"api": "scripted", "models": [
            {"id": "m", "params": {"script": SCRIPT}}]}}},
        "agents": {"defaults": {"model": "bench/m", "workspace": str(root / "ws")}},
        "mcp": {"servers": {"everything": {"command": str(SERVER), "args": ["stdio"]}}},
    }
    path = root / "config.json"
    path.write_text(json.dumps(config))
    started: dict[str, float] = {}

    def on_event(event: AgentEvent) -> None:
        if event.stream != "tool":
            return
        now = time.perf_counter()
        call_id = str(event.data.get("toolCallId"))
        if event.data.get("phase") == "start":
            started[call_id] = now
        elif event.data.get("phase") == "result" and call_id in started:
            ours_times.append(now - started.pop(call_id))

    options = TurnOptions(on_agent_event=on_event)
    async with Host.from_config(path, env={"CLAWHARNESS_STATE_DIR": str(root)},
                                store_url=str(root / "bench.db")) as host:
        # warm-up: the server started, the catalog built, the code paths hot
        for i in range(5):
            await host.run_turn(f"warm-{i}", "go", options)
            await bare_call(bare_session)
        ours_times.clear()
        done = 0
        while done < calls:
            for i in range(block):
                t0 = time.perf_counter()
                result = await host.run_turn(f"s{done + i}", "go", options)
                turn_times.append(time.perf_counter() - t0)
                if result.text != "done" or result.terminal != "ok":
                    raise RuntimeError(f"our turn failed: {result}")
            for _ in range(block):
                t0 = time.perf_counter()
                await bare_call(bare_session)
                bare_times.append(time.perf_counter() - t0)
            done += block


async def bare_call(session: Any) -> None:
    result = await session.call_tool("echo", {"message": "bench"})
    if result.is_error or result.content[0].text != "Echo: bench":
        raise RuntimeError(f"bare call failed: {result}")


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="a smaller run, under a minute")
    args = parser.parse_args()
    if not SERVER.exists():
        raise SystemExit("run scripts/native-runtimes.sh first (server-everything)")
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    calls, block = (200, 20) if args.quick else (1000, 50)
    ours_times: list[float] = []
    bare_times: list[float] = []
    turn_times: list[float] = []
    params = StdioServerParameters(command=str(SERVER), args=["stdio"])
    with open("/dev/null", "w") as errlog, tempfile.TemporaryDirectory() as tmp:
        async with stdio_client(params, errlog=errlog) as (read, write), \
                ClientSession(read, write) as session:
            await session.initialize()
            await session.list_tools()
            await ours(Path(tmp), calls, block, bare_times, session, ours_times, turn_times)
    ms = 1000.0
    figures = {
        "calls": len(ours_times),
        "ours_p50_ms": median(ours_times) * ms, "ours_p99_ms": pct(ours_times, 99) * ms,
        "bare_p50_ms": median(bare_times) * ms, "bare_p99_ms": pct(bare_times, 99) * ms,
        "turn_p50_ms": median(turn_times) * ms,
    }
    figures["added_ms_per_call"] = figures["ours_p50_ms"] - figures["bare_p50_ms"]
    figures["ratio_p50"] = figures["ours_p50_ms"] / figures["bare_p50_ms"]
    show("An MCP tool call: through a built-in runtime turn vs a bare ClientSession",
         ["side", "p50 ms", "p99 ms"],
         [["ours (tool start -> result, in a turn)", figures["ours_p50_ms"],
           figures["ours_p99_ms"]],
          ["bare ClientSession.call_tool", figures["bare_p50_ms"], figures["bare_p99_ms"]],
          ["ours, whole turn (2 model steps + 1 call)", figures["turn_p50_ms"], float("nan")]])
    console.print(f"host adds {figures['added_ms_per_call']:.3f} ms per call at p50 "
                  "(target < 1 ms)")
    emit({k: round(v, 4) if isinstance(v, float) else v for k, v in figures.items()})


if __name__ == "__main__":
    asyncio.run(main())
