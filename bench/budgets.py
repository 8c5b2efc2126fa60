"""What the budget check adds to a turn, measured beside the same turn without it.

Two hosts on their own SQLite stores run the same turn (an in-process scripted model,
priced at $1 / $2 per million tokens, one tool call then an answer), one turn per new
session, in alternating blocks so both see the same machine load:

  - `without`: no budget set (the turn is priced and its spend row written off the
    turn's path, as on every host);
  - `with`: three budgets (the day's dollars, the agent's daily turns, the session's
    tokens): before the model is first asked the turn reserves its estimate on all
    three from the process's allowances (one read of the ledger; the allowances are
    taken by the first turns), and settles its real usage after (its spend row and the
    counters, in one transaction); before its second model call it reads the ledger
    again (docs/budgets.md).

Reported: the median wall-clock and CPU time per turn of each, and their difference (the
check's cost per turn); then its parts alone: the pure decision (which budgets apply,
the estimate, the warnings) and the store's work.

    python bench/budgets.py [--quick]

The machine's load moves CPU time too; instruction counts do not (much): run one side's
turns alone under callgrind, twice, and take the difference per turn (`--side`):

    PYTHONHASHSEED=0 valgrind --tool=callgrind --callgrind-out-file=/dev/null \
        python bench/budgets.py --side with --turns 40     # and --turns 120, and without
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

SCRIPT = {
    "responses": [
        {"match": "^go", "repeat": True,
         "tool_calls": [{"name": "read", "arguments": {"path": "data.txt"}}]},
        {"match": "hello data", "repeat": True, "text": "done"},
    ],
}
BUDGETS = {"daily": {"usd": 1_000_000}, "perAgent": {"daily": {"turns": 10_000_000}},
           "perSession": {"tokens": 1_000_000_000}}


async def open_host(root: Path, budgets: dict[str, Any] | None) -> Any:
    from clawharness.host import Host

    ws = root / "ws"
    ws.mkdir(parents=True, exist_ok=True)
    (ws / "data.txt").write_text("hello data\n")
    config: dict[str, Any] = {
        "models": {"providers": {"bench": {
            "api": "scripted", "cost": {"input": 1.0, "output": 2.0},
            "models": [{"id": "m", "maxTokens": 4096, "params": {"script": SCRIPT}}]}}},
        "agents": {"defaults": {"model": "bench/m", "workspace": str(ws)}},
        "tools": {"allow": ["read"]},
    }
    if budgets is not None:
        config["budgets"] = budgets
    path = root / "config.json"
    path.write_text(json.dumps(config))
    host = Host.from_config(path, env={"CLAWHARNESS_STATE_DIR": str(root)},
                            store_url=str(root / "state.db"))
    await host.start()
    return host


async def one_turn(host: Any, key: str) -> tuple[float, float]:
    wall, cpu = time.perf_counter(), time.process_time()
    result = await host.run_turn(key, "go")
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    if result.terminal != "ok" or result.text != "done" or result.cost_usd is None:
        raise RuntimeError(f"the turn failed: {result}")
    return wall * 1000, cpu * 1000


async def turns(root: Path, rounds: int, block: int) -> dict[str, dict[str, float]]:
    plain = await open_host(root / "without", None)
    held = await open_host(root / "with", BUDGETS)
    times: dict[str, tuple[list[float], list[float]]] = {"without": ([], []),
                                                         "with": ([], [])}
    try:
        for side, host in (("without", plain), ("with", held)):  # warm both
            for n in range(block):
                await one_turn(host, f"warm-{side}-{n}")
        for r in range(rounds):
            order = (("without", plain), ("with", held)) if r % 2 == 0 else (
                ("with", held), ("without", plain))
            for side, host in order:
                for n in range(block):
                    wall, cpu = await one_turn(host, f"{side}-{r}-{n}")
                    times[side][0].append(wall)
                    times[side][1].append(cpu)
        day = time.strftime("%Y-%m-%d", time.gmtime())
        (state,) = await held.budget_states([f"day:{day}"])
        if state.spent.turns < rounds * block or state.reserved.turns:
            raise RuntimeError(f"the ledger did not count the turns: {state}")
    finally:
        await plain.close()
        await held.close()
    return {side: {"wall_ms": median(w), "cpu_ms": median(c), "turns": len(w)}
            for side, (w, c) in times.items()}


def decision_us(n: int) -> float:
    """The pure part, per turn: which budgets apply, the estimate, the warnings."""
    from clawharness.config import BudgetsConfig, ModelCost
    from clawharness.spend import Rates, estimate, prompt_chars, turn_budgets, warnings

    config = BudgetsConfig.model_validate(BUDGETS)
    rates = Rates.flat(ModelCost(input=1.0, output=2.0))
    history = [{"role": "user", "content": [{"type": "text", "text": "hello " * 40}]},
               {"role": "assistant", "content": [{"type": "text", "text": "done " * 40}]}] * 5
    start = time.process_time()
    for i in range(n):
        budgets = turn_budgets(config, agent_id="main", session_key=f"agent:main:{i}",
                               day="2026-12-07")
        estimate(rates, prompt_chars=prompt_chars(history) + 2, output_tokens=4096,
                 seconds=600)
        warnings(budgets, ())
    return (time.process_time() - start) / n * 1e6


async def store_us(root: Path, n: int) -> dict[str, float]:
    """The store's part (SQLite), per turn, CPU time (the writer thread's included): the
    read a turn reserving from its process's allowance makes (its three budgets and
    their pools), the settlement (its spend row and the three budgets' counters), the
    spend row alone (what a turn without budgets writes anyway), and a reservation in a
    transaction of its own (a turn no allowance fits) with its settlement."""
    from clawharness.store import Amount, BudgetClaim, BudgetLimit, SpendRecord, open_store

    store = open_store(str(root / "ledger.db"))
    await store.open()
    claims = [BudgetClaim("day:d", BudgetLimit(nano_usd=10**18), "pool:budgets.daily"),
              BudgetClaim("agent:main:day:d", BudgetLimit(turns=10**9),
                          "pool:budgets.perAgent.daily")]
    keys = [c.key for c in claims]

    def record(run: str, i: int) -> SpendRecord:
        return SpendRecord(run, "d", time.time(), "main", f"agent:main:{i}", "bench", "m",
                           "openclaw", "ok", input_tokens=100, output_tokens=10,
                           nano_usd=120_000, ms=3)

    async def timed(step: Any) -> float:
        cpu = time.process_time()
        for i in range(n):
            await step(i)
        return (time.process_time() - cpu) / n * 1e6

    async def read(i: int) -> None:
        await store.budget_states([*keys, f"session:{i}", "pool:budgets.daily",
                                   "pool:budgets.perAgent.daily", "pool:budgets.perSession"])

    async def settle(i: int) -> None:
        await store.settle_budget(record(f"s{i}", i), [*keys, f"session:{i}"],
                                  Amount(120_000, 110, 1, 3))

    async def spend_row(i: int) -> None:
        await store.settle_budget(record(f"w{i}", i), (), Amount())

    async def transaction(i: int) -> None:
        mine = [*claims, BudgetClaim(f"session:{i}", BudgetLimit(tokens=10**9),
                                     "pool:budgets.perSession")]
        await store.reserve_budget(f"t{i}", mine, Amount(9_000_000, 4200, 1, 600_000),
                                   ttl=900)
        await store.settle_budget(record(f"t{i}", i), [c.key for c in mine],
                                  Amount(120_000, 110, 1, 3))

    try:
        return {"read": await timed(read), "settle": await timed(settle),
                "spend_row": await timed(spend_row),
                "transaction": await timed(transaction)}
    finally:
        await store.close()


async def one_side(side: str, n: int) -> None:
    """Only `n` turns of one side (after ten to warm up), for an instruction count: run
    it under `valgrind --tool=callgrind` with two values of `n`; the difference of the
    totals over the difference of `n` is one turn's instructions, start-up excluded."""
    with tempfile.TemporaryDirectory() as tmp:
        host = await open_host(Path(tmp), BUDGETS if side == "with" else None)
        try:
            for i in range(10 + n):
                await one_turn(host, f"{side}-{i}")
        finally:
            await host.close()


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer turns (a smoke run)")
    parser.add_argument("--side", choices=("with", "without"),
                        help="only run turns of this side (for callgrind, with --turns)")
    parser.add_argument("--turns", type=int, default=100, help="with --side: how many")
    args = parser.parse_args()
    if args.side:
        await one_side(args.side, args.turns)
        return
    rounds, block, ops = (4, 10, 200) if args.quick else (20, 25, 2000)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        sides = await turns(root, rounds, block)
        parts = await store_us(root, ops)
    pure_us = decision_us(ops * 5)
    added_wall = sides["with"]["wall_ms"] - sides["without"]["wall_ms"]
    added_cpu = sides["with"]["cpu_ms"] - sides["without"]["cpu_ms"]
    show("A turn with and without the budget check (median per turn)",
         ("side", "turns", "wall ms", "CPU ms"),
         [(side, int(f["turns"]), f["wall_ms"], f["cpu_ms"]) for side, f in sides.items()])
    show("The check's parts (CPU)", ("part", "µs per turn"),
         [("the pure decision (budgets, estimate, warnings)", pure_us),
          ("store: the allowance check's read", parts["read"]),
          ("store: the settlement (spend row and counters)", parts["settle"]),
          ("store: the spend row alone (written without budgets too)", parts["spend_row"]),
          ("store: reserve and settle, no allowance (two transactions)",
           parts["transaction"])])
    console.print(f"the check adds {added_wall:.3f} ms wall, {added_cpu:.3f} ms CPU per turn")
    emit({"bench": "budgets", "quick": args.quick,
          "turn_without_ms": round(sides["without"]["wall_ms"], 4),
          "turn_with_ms": round(sides["with"]["wall_ms"], 4),
          "turn_without_cpu_ms": round(sides["without"]["cpu_ms"], 4),
          "turn_with_cpu_ms": round(sides["with"]["cpu_ms"], 4),
          "added_wall_ms": round(added_wall, 4), "added_cpu_ms": round(added_cpu, 4),
          "decision_us": round(pure_us, 2), "store_read_us": round(parts["read"], 1),
          "store_settle_us": round(parts["settle"], 1),
          "store_spend_row_us": round(parts["spend_row"], 1),
          "store_transactions_us": round(parts["transaction"], 1)})


if __name__ == "__main__":
    asyncio.run(main())
