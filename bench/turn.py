"""Host overhead per agent turn, beside the OpenAI Agents SDK's `Runner.run`.

Both sides run the same turn with an in-process scripted model (no HTTP, so the figures
compare host overhead alone): the model asks for one tool call (read a small file), then
answers. Both keep the session in a SQLite file (ours: the embedded store; theirs:
`SQLiteSession`). Measured:
  - sequential per-turn time (one turn per new session);
  - throughput with 100 and 1,000 concurrent sessions (the SDK at its best: an
    `agent.clone()` per run), and lost or duplicated transcript entries on our side;
  - per-turn time as one session's history grows (first vs last decile p50);
  - sequential per-turn time with tracing on, on both sides, each exporting to a no-op
    processor (ours: OpenTelemetry spans, then spans and metrics; the SDK: its own
    tracing), the three taking turns within each round.

Both sides run under the same garbage-collector thresholds: by default the ones a
started host sets (`clawharness._gc`, held for the whole run, so the SDK gets them too);
`--default-gc` runs both with CPython's defaults and our host told to leave them alone.
Our host also raises the young threshold with its turns in flight (a host feature, so
the SDK's turns, which it does not run, keep the base thresholds).

    python bench/turn.py [--quick] [--default-gc]
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import tempfile
import time
from pathlib import Path
from typing import Any

from _common import Stopwatch, console, emit, median, show

SCRIPT = {
    "responses": [
        {"match": "^go", "repeat": True,
         "tool_calls": [{"name": "read", "arguments": {"path": "data.txt"}}]},
        {"match": "hello data", "repeat": True, "text": "done"},
    ],
}


# --- ours -------------------------------------------------------------------------------

TUNE_GC = True


def noop_telemetry(*, metrics: bool) -> Any:
    """Tracing on: every span made, ended and handed to a processor that drops it; with
    `metrics`, the metrics recorded too (as with OTLP export on)."""
    from opentelemetry.sdk.trace import SpanProcessor

    from clawharness.observability import Telemetry, TelemetrySettings

    return Telemetry(TelemetrySettings(tracing=True, metrics=metrics),
                     span_processors=[SpanProcessor()])


async def ours_host(root: Path, *, traced: bool = False, metrics: bool = False) -> Any:
    from clawharness.host import Host

    ws = root / "ws"
    ws.mkdir(parents=True, exist_ok=True)
    (ws / "data.txt").write_text("hello data\n")
    config = {
        "models": {"providers": {"bench": {"api": "scripted", "models": [
            {"id": "m", "params": {"script": SCRIPT}}]}}},
        "agents": {"defaults": {"model": "bench/m", "workspace": str(ws)}},
        "tools": {"allow": ["read"]},
        "host": {"tuneGc": TUNE_GC},
    }
    path = root / "config.json"
    path.write_text(json.dumps(config))
    host = Host.from_config(path, env={"CLAWHARNESS_STATE_DIR": str(root)},
                            store_url=str(root / "ours.db"),
                            telemetry=noop_telemetry(metrics=metrics) if traced else None)
    await host.start()
    return host


async def ours_turn(host: Any, key: str) -> float:
    start = time.perf_counter()
    result = await host.run_turn(key, "go")
    elapsed = time.perf_counter() - start
    if result.terminal != "ok" or result.text != "done":
        raise RuntimeError(f"our turn failed: {result}")
    return elapsed


# --- the SDK ------------------------------------------------------------------------------

def sdk_parts(root: Path, *, traced: bool = False) -> tuple[Any, Any, Any]:
    from agents import (
        Agent,
        SQLiteSession,
        function_tool,
        set_trace_processors,
        set_tracing_disabled,
    )
    from agents.items import ModelResponse
    from agents.models.interface import Model
    from agents.tracing import TracingProcessor
    from agents.usage import Usage
    from openai.types.responses import (
        ResponseFunctionToolCall,
        ResponseOutputMessage,
        ResponseOutputText,
    )

    class NoopProcessor(TracingProcessor):
        def on_trace_start(self, trace: Any) -> None: ...
        def on_trace_end(self, trace: Any) -> None: ...
        def on_span_start(self, span: Any) -> None: ...
        def on_span_end(self, span: Any) -> None: ...
        def shutdown(self) -> None: ...
        def force_flush(self) -> None: ...

    if traced:  # traces and spans made, handed to a processor that drops them
        set_tracing_disabled(False)
        set_trace_processors([NoopProcessor()])
    else:
        set_tracing_disabled(True)  # the SDK at its best: no trace export work
    data = root / "sdk-data.txt"
    data.write_text("hello data\n")

    @function_tool
    def read(path: str) -> str:
        """Read a file."""
        return data.read_text()

    class ScriptedModel(Model):
        async def get_response(self, system_instructions: Any, input: Any, *args: Any,
                               **kwargs: Any) -> Any:
            last = input[-1] if isinstance(input, list) and input else {}
            kind = last.get("type") if isinstance(last, dict) else None
            if kind == "function_call_output":
                out = ResponseOutputMessage(
                    id="msg", type="message", role="assistant", status="completed",
                    content=[ResponseOutputText(type="output_text", text="done", annotations=[])])
                return ModelResponse(output=[out], usage=Usage(requests=1), response_id=None)
            call = ResponseFunctionToolCall(type="function_call", call_id="c1", name="read",
                                            arguments='{"path": "data.txt"}', id="fc")
            return ModelResponse(output=[call], usage=Usage(requests=1), response_id=None)

        def stream_response(self, *args: Any, **kwargs: Any) -> Any:
            raise NotImplementedError

    agent = Agent(name="bench", instructions="x", tools=[read], model=ScriptedModel())
    db = root / "sdk.db"

    def session(key: str) -> Any:
        return SQLiteSession(key, db)

    return agent, session, db


async def sdk_turn(agent: Any, session: Any, key: str) -> float:
    from agents import Runner

    start = time.perf_counter()
    result = await Runner.run(agent, "go", session=session(key))
    elapsed = time.perf_counter() - start
    if result.final_output != "done":
        raise RuntimeError(f"SDK turn failed: {result.final_output!r}")
    return elapsed


# --- the measurements ---------------------------------------------------------------------

async def sequential(n: int, root: Path) -> tuple[float, float]:
    host = await ours_host(root / "seq")
    agent, session, _ = sdk_parts(root)
    for i in range(5):  # warm both up
        await ours_turn(host, f"warm{i}")
        await sdk_turn(agent, session, f"warm{i}")
    ours = [await ours_turn(host, f"s{i}") for i in range(n)]
    theirs = [await sdk_turn(agent, session, f"s{i}") for i in range(n)]
    await host.close()
    return median(ours) * 1000, median(theirs) * 1000


async def traced_sequential(n: int, root: Path) -> tuple[float, float, float]:
    """Sequential turns with tracing on, each to a no-op processor: ours with spans only,
    ours with spans and metrics, and the SDK (which records no metrics). The three take
    turns, one turn each in a round (in rotating order), so a loaded machine weighs on
    all of them alike."""
    spans_only = await ours_host(root / "traced", traced=True, metrics=False)
    metered = await ours_host(root / "traced-metrics", traced=True, metrics=True)
    (root / "sdktraced").mkdir()
    agent, session, _ = sdk_parts(root / "sdktraced", traced=True)
    ours: list[float] = []
    ours_metered: list[float] = []
    theirs: list[float] = []
    try:
        for i in range(5):
            await ours_turn(spans_only, f"warm{i}")
            await ours_turn(metered, f"warm{i}")
            await sdk_turn(agent, session, f"warm{i}")
        # who goes first rotates: a turn right after the SDK's pays for what the SDK's
        # session left running (its writes go through a thread), so no side always does
        sides = [(ours, lambda key: ours_turn(spans_only, key)),
                 (ours_metered, lambda key: ours_turn(metered, key)),
                 (theirs, lambda key: sdk_turn(agent, session, key))]
        for i in range(n):
            for times, run in sides[i % 3:] + sides[:i % 3]:
                times.append(await run(f"t{i}"))
    finally:
        await spans_only.close()
        await metered.close()
        sdk_parts(root / "sdktraced")  # tracing off again for the runs after this one
    return median(ours) * 1000, median(ours_metered) * 1000, median(theirs) * 1000


async def concurrent(n: int, root: Path) -> tuple[float, float, int]:
    host = await ours_host(root / f"conc{n}")
    (root / f"sdkconc{n}").mkdir()
    agent, session, _ = sdk_parts(root / f"sdkconc{n}")
    for i in range(5):  # warm both sides' fresh session stores before the clock starts
        await ours_turn(host, f"warm{i}")
        await sdk_turn(agent.clone(), session, f"warm{i}")
    with Stopwatch() as ours_clock:
        await asyncio.gather(*(ours_turn(host, f"c{i}") for i in range(n)))
    lost = 0
    for i in range(n):
        entries = await host.history(f"c{i}")
        roles = [e.role for e in entries]
        if roles != ["user", "assistant", "toolResult", "assistant"]:
            lost += abs(4 - len(roles)) or 1
    await host.close()
    gc.collect()
    with Stopwatch() as sdk_clock:
        await asyncio.gather(*(sdk_turn(agent.clone(), session, f"c{i}") for i in range(n)))
    return n / ours_clock.elapsed, n / sdk_clock.elapsed, lost


async def growth(n: int, root: Path) -> tuple[float, float, float, float]:
    host = await ours_host(root / "grow")
    (root / "sdkgrow").mkdir()
    agent, session, _ = sdk_parts(root / "sdkgrow")
    ours = [await ours_turn(host, "one") for _ in range(n)]
    await host.close()
    theirs = [await sdk_turn(agent, session, "one") for _ in range(n)]
    tenth = max(1, n // 10)
    return (median(ours[:tenth]) * 1000, median(ours[-tenth:]) * 1000,
            median(theirs[:tenth]) * 1000, median(theirs[-tenth:]) * 1000)


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="a smaller run, under a minute")
    parser.add_argument("--default-gc", action="store_true",
                        help="both sides with CPython's default GC thresholds")
    args = parser.parse_args()
    global TUNE_GC
    TUNE_GC = not args.default_gc
    from clawharness._gc import GcTuning

    if TUNE_GC:
        GcTuning.acquire()  # for the SDK's runs too: the same thresholds on both sides
    seq_n, conc, grow_n = (100, (100, 1000), 120) if args.quick else (500, (100, 1000), 500)
    with tempfile.TemporaryDirectory(prefix="bench-turn-") as tmp:
        root = Path(tmp)
        console.print("[bold]sequential turns[/]")
        ours_ms, sdk_ms = await sequential(seq_n, root)
        rows: list[list[Any]] = [["per-turn ms (median, sequential)", ours_ms, sdk_ms, sdk_ms / ours_ms]]
        console.print("[bold]sequential turns, tracing on (no-op processors), interleaved[/]")
        ours_traced_ms, ours_metered_ms, sdk_traced_ms = await traced_sequential(seq_n, root)
        rows.append(["per-turn ms (median, sequential, traced)", ours_traced_ms, sdk_traced_ms,
                     sdk_traced_ms / ours_traced_ms])
        rows.append(["per-turn ms (median, sequential, traced + our metrics)", ours_metered_ms,
                     sdk_traced_ms, sdk_traced_ms / ours_metered_ms])
        throughput: dict[int, tuple[float, float, int]] = {}
        for n in conc:
            console.print(f"[bold]{n} concurrent sessions[/]")
            throughput[n] = await concurrent(n, root)
            ours_tps, sdk_tps, _lost = throughput[n]
            rows.append([f"turns/s, {n} concurrent sessions", ours_tps, sdk_tps, ours_tps / sdk_tps])
        console.print(f"[bold]history growth over {grow_n} turns on one session[/]")
        o_first, o_last, s_first, s_last = await growth(grow_n, root)
        rows.append(["per-turn ms, first decile p50", o_first, s_first, s_first / o_first])
        rows.append(["per-turn ms, last decile p50", o_last, s_last, s_last / o_last])
        show("host overhead per turn: clawharness vs OpenAI Agents SDK", ["measure", "ours", "SDK", "ratio (better = >1)"], rows)
    top = max(conc)
    emit({
        "bench": "turn",
        "quick": args.quick,
        "ours_turn_ms_p50": round(ours_ms, 3),
        "sdk_turn_ms_p50": round(sdk_ms, 3),
        "overhead_ratio": round(ours_ms / sdk_ms, 4),
        "ours_traced_turn_ms_p50": round(ours_traced_ms, 3),
        "sdk_traced_turn_ms_p50": round(sdk_traced_ms, 3),
        "traced_overhead_ratio": round(ours_traced_ms / sdk_traced_ms, 4),
        "ours_traced_metrics_turn_ms_p50": round(ours_metered_ms, 3),
        "traced_metrics_overhead_ratio": round(ours_metered_ms / sdk_traced_ms, 4),
        "ours_tps_1000": round(throughput[top][0], 1),
        "sdk_tps_1000": round(throughput[top][1], 1),
        "concurrent_speedup": round(throughput[top][0] / throughput[top][1], 3),
        "ours_tps_100": round(throughput[100][0], 1),
        "sdk_tps_100": round(throughput[100][1], 1),
        "history_growth": round(o_last / o_first, 3),
        "sdk_history_growth": round(s_last / s_first, 3),
        "lost_entries": sum(v[2] for v in throughput.values()),
        "gc_thresholds": list(gc.get_threshold()),
        "notes": "in-process scripted model, one tool call per turn, SQLite file sessions on both "
                 "sides; overhead_ratio = ours/SDK per-turn median; traced_overhead_ratio = the same with "
                 "tracing on both sides to no-op processors; traced_metrics_overhead_ratio = the same "
                 "with our metrics recorded too (the SDK has none); the traced turns "
                 "interleave ours and the SDK's in rotating order; "
                 "concurrent_speedup = ours/SDK "
                 "turns/s at 1000 concurrent sessions (SDK with agent.clone() per run); both sides under "
                 "the same GC thresholds (gc_thresholds; ours raises the young one with its turns in "
                 "flight, docs/configuration.md)",
    })


if __name__ == "__main__":
    asyncio.run(main())
