"""A finished turn is freed by reference counting: it leaves nothing in reference cycles.

Garbage in cycles waits for the cyclic collector, whose young collections walk every
object of every turn in flight: with many sessions at once that walk, not the turns,
becomes the host's work (docs/configuration.md, "Garbage collection"). So a turn's
objects must not point back at one another once it is over.

Each check runs in a fresh interpreter, so that what other tests of this process left
for the collector (an old event loop's clients, say) is not counted: a host with the
in-process scripted model (`api: scripted`; the HTTP clients keep each response and its
stream in a cycle of their own, one per request) runs warm turns, then more turns with
the collector keeping what it finds (`gc.DEBUG_SAVEALL`), and prints those types.
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

READ_THEN_ANSWER = {"responses": [
    {"match": "^go", "repeat": True,
     "tool_calls": [{"name": "read", "arguments": {"path": "data.txt"}}]},
    {"match": "hello data", "repeat": True, "text": "done"},
]}

_CHECK = """
import asyncio, gc, json, sys
from collections import Counter
from clawharness.host import Host

config_path, sessions = sys.argv[1], sys.argv[2]

async def main():
    async with Host.from_config(config_path, env={"CLAWHARNESS_STATE_DIR": sys.argv[3]}) as host:
        async def turn(i):
            key = f"s{i}" if sessions == "new" else "one"
            result = await host.run_turn(key, f"go {i}")
            assert (result.terminal, result.text) == ("ok", "done"), result
        for i in range(2):  # first-use caches and lazily made parts are not garbage
            await turn(i)
        await asyncio.sleep(0)
        gc.collect()
        gc.set_debug(gc.DEBUG_SAVEALL)
        for i in range(3):
            await turn(100 + i)
        await asyncio.sleep(0)
        gc.collect()
        gc.set_debug(0)
        found = Counter(type(thing).__qualname__ for thing in gc.garbage)
        print(json.dumps(found))

gc.disable()
asyncio.run(main())
"""


async def cyclic_garbage_of_turns(tmp_path: Path, sessions: str) -> dict[str, int]:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "data.txt").write_text("hello data\n")
    config = {
        "models": {"providers": {"local": {"api": "scripted", "models": [
            {"id": "m", "params": {"script": READ_THEN_ANSWER}}]}}},
        "agents": {"defaults": {"model": "local/m", "workspace": str(workspace)}},
        "tools": {"allow": ["read"]},
    }
    path = tmp_path / "config.json"
    path.write_text(json.dumps(config))
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-c", _CHECK, str(path), sessions, str(tmp_path),
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    out, err = await asyncio.wait_for(proc.communicate(), 120)
    assert proc.returncode == 0, err.decode()
    found: dict[str, int] = json.loads(out.decode().strip().splitlines()[-1])
    return found


async def test_a_tool_turn_on_a_new_session_leaves_no_cycles(tmp_path: Path) -> None:
    assert await cyclic_garbage_of_turns(tmp_path, "new") == {}


async def test_tool_turns_on_one_session_leave_no_cycles(tmp_path: Path) -> None:
    assert await cyclic_garbage_of_turns(tmp_path, "one") == {}
