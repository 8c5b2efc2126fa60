"""What the context budget and compaction cost a turn (docs/compaction.md).

An in-process scripted model (no HTTP), one session growing turn by turn, three ways:
  - `none`: no `contextWindow`, so no budget (the prompt is the newest 200 messages);
  - `budget`: a window so large nothing ever compacts: the per-call budget check and
    the compaction trigger run on every call and never fire;
  - `compacting`: a small window: the session compacts every few turns.
Reported: the median CPU time of a turn over the session (CPU, not wall clock: a shared
machine's load moves the wall clock by more than what is measured) (the three ways alternate turn by turn,
each round in another order, so the machine's drift hits them alike), and for `compacting` the turns that compacted
(a compaction is one more model call, the summary's, inside that turn) beside the ones
that did not.

    python bench/compaction.py [--quick]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import tempfile
import time
from pathlib import Path
from typing import Any

from _common import console, emit, median, show

SCRIPT = {"responses": [
    {"match": "Summarise the conversation", "repeat": True, "text": "A short summary."},
    {"match": "^turn", "repeat": True,
     "text": "An answer of a few sentences, long enough to fill a window. " * 3},
]}
WINDOWS = {"none": None, "budget": 10_000_000, "compacting": 3_000}


async def host_for(root: Path, window: int | None) -> Any:
    from clawharness.host import Host

    row: dict[str, Any] = {"id": "m", "params": {"script": SCRIPT}, "maxTokens": 200}
    if window is not None:
        row["contextWindow"] = window
    config = {
        "models": {"providers": {"bench": {"api": "scripted", "models": [row]}}},
        "agents": {"defaults": {"model": "bench/m", "workspace": str(root / "ws"),
                                "compaction": {"reserveTokens": 300, "reserveTokensFloor": 0,
                                               "keepRecentTokens": 600}}},
        "tools": {"deny": ["*"]},
    }
    root.mkdir(parents=True, exist_ok=True)
    path = root / "config.json"
    path.write_text(json.dumps(config))
    host = Host.from_config(path, env={"CLAWHARNESS_STATE_DIR": str(root)},
                            store_url=str(root / "bench.db"))
    await host.start()
    return host


async def main(turns: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        hosts = {name: await host_for(Path(tmp) / name, window)
                 for name, window in WINDOWS.items()}
        times: dict[str, list[float]] = {name: [] for name in hosts}
        compacted: list[float] = []
        plain: list[float] = []
        summaries = 0
        try:
            names = list(hosts)
            for n in range(turns):
                # each round in another order, so no way always runs first
                for name in names[n % 3:] + names[:n % 3]:
                    host = hosts[name]
                    before = len(await host.history("main")) if n else 0
                    start = time.process_time()
                    result = await host.run_turn("main", f"turn {n}: tell me more")
                    elapsed = time.process_time() - start
                    if result.terminal != "ok":
                        raise RuntimeError(f"{name} turn {n} failed: {result.error}")
                    times[name].append(elapsed)
                    if name == "compacting":
                        grew = len(await host.history("main")) - before
                        (compacted if grew > 2 else plain).append(elapsed)
                        summaries += grew > 2
        finally:
            for host in hosts.values():
                await host.close()
    rows = [(name, len(t), median(t) * 1000) for name, t in times.items()]
    rows += [("compacting: turns that compacted", len(compacted), median(compacted) * 1000),
             ("compacting: turns that did not", len(plain), median(plain) * 1000)]
    show(f"CPU time of a turn over a {turns}-turn session (ms, median)",
         ["way", "turns", "p50 CPU ms"], rows)
    emit({"turns": turns, "summaries": summaries,
          "none_cpu_p50_ms": median(times["none"]) * 1000,
          "budget_cpu_p50_ms": median(times["budget"]) * 1000,
          "compacting_plain_cpu_p50_ms": median(plain) * 1000,
          "compacting_compacted_cpu_p50_ms": median(compacted) * 1000})


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="100 turns instead of 400")
    args = parser.parse_args()
    console.print("compaction bench: one growing session, three ways, turns alternating")
    asyncio.run(main(100 if args.quick else 400))
