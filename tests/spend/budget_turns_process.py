"""One process of the budget contention test: opens a host on the shared store, says
`ready`, waits for `go` on stdin, runs its turns (some at once, each on its own
session), and prints one JSON line: the turns that ran, their cost, the refusals.

    python budget_turns_process.py CONFIG STATE_DIR NAME TURNS AT_ONCE
"""

from __future__ import annotations

import asyncio
import json
import sys

from clawharness.errors import BudgetExceededError
from clawharness.host import Host


async def main(config: str, state: str, name: str, turns: int, at_once: int) -> None:
    ran: list[dict[str, object]] = []
    refused = 0
    gate = asyncio.Semaphore(at_once)
    async with Host.from_config(config, env={"CLAWHARNESS_STATE_DIR": state}) as host:
        await host.start()
        print("ready", flush=True)
        await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)

        async def one(n: int) -> None:
            nonlocal refused
            async with gate:
                try:
                    result = await host.run_turn(f"{name}-{n}", "hello")
                except BudgetExceededError:
                    refused += 1
                    return
                ran.append({"runId": result.run_id, "terminal": result.terminal,
                            "costUsd": result.cost_usd})

        await asyncio.gather(*(one(n) for n in range(turns)))
    print(json.dumps({"ran": ran, "refused": refused}), flush=True)


if __name__ == "__main__":
    config, state, name, turns, at_once = sys.argv[1:6]
    asyncio.run(main(config, state, name, int(turns), int(at_once)))
