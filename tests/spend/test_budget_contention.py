"""Eight processes run turns at once against one daily dollar budget on one store
(SQLite, PostgreSQL): what they spend never passes it (each turn's reservation covers
what it spends here, so not even by one reservation), and nothing is lost: every turn
that ran has its spend row and is counted once, no hold is left."""

from __future__ import annotations

import json
import math
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from clawharness.host import Host
from clawharness.store import Amount
from clawharness.testing import ScriptedModelServer

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "store"))
from store_test_support import PG_URL, drop_schema, new_schema_name, pg_unavailable

PROCESSES = 8
TURNS = 6
AT_ONCE = 3
#: each turn: 10 tokens in at $1/M, 500 out at $2/M (the model's most): $0.00101
SCRIPT = {"responses": [{"match": ".*", "repeat": True, "text": "ok",
                         "usage": {"input_tokens": 10, "output_tokens": 500}}]}
TURN_NANO = 1_010_000
LIMIT_USD = 0.02
PROCESS = Path(__file__).with_name("budget_turns_process.py")


@pytest.fixture(scope="module")
def model() -> Iterator[ScriptedModelServer]:
    server = ScriptedModelServer(SCRIPT)
    with server.run_in_thread():
        yield server


@pytest.fixture(params=["sqlite", "postgres"])
def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    if request.param == "sqlite":
        yield str(tmp_path / "state.db")
        return
    if reason := pg_unavailable():
        pytest.fail(reason)
    schema = new_schema_name()
    import psycopg

    with psycopg.connect(PG_URL, autocommit=True) as conn:
        conn.execute(f'CREATE SCHEMA "{schema}"')
    try:
        yield f"{PG_URL}?options=-csearch_path%3D{schema}"
    finally:
        drop_schema(schema)


def write_config(root: Path, model: ScriptedModelServer, store_url: str) -> Path:
    path = root / "config.json"
    path.write_text(json.dumps({
        "models": {"providers": {"scripted": {
            "baseUrl": model.base_url_openai, "api": "openai-responses", "apiKey": "k",
            "cost": {"input": 1.0, "output": 2.0},
            "models": [{"id": "m", "maxTokens": 500}]}}},
        "agents": {"defaults": {"model": "scripted/m", "workspace": str(root / "ws")}},
        "store": {"url": store_url},
        "host": {"tuneGc": False},
        "budgets": {"daily": {"usd": LIMIT_USD}},
    }))
    return path


def run_processes(config: Path, state: Path) -> list[dict[str, Any]]:
    procs = [subprocess.Popen(
        [sys.executable, str(PROCESS), str(config), str(state), f"p{i}", str(TURNS),
         str(AT_ONCE)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        for i in range(PROCESSES)]
    try:
        for proc in procs:  # every process ready before any starts a turn
            assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
        for proc in procs:
            assert proc.stdin is not None
            proc.stdin.write("go\n")
            proc.stdin.flush()
        outs = [proc.communicate(timeout=120)[0] for proc in procs]
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.kill()
    assert all(proc.returncode == 0 for proc in procs)
    return [json.loads(out.strip().splitlines()[-1]) for out in outs]


async def test_eight_processes_never_overspend_one_daily_budget(
        tmp_path: Path, model: ScriptedModelServer, store_url: str) -> None:
    config = write_config(tmp_path, model, store_url)
    reports = run_processes(config, tmp_path / "state")
    ran = [turn for report in reports for turn in report["ran"]]
    refused = sum(report["refused"] for report in reports)
    assert len(ran) + refused == PROCESSES * TURNS
    assert all(turn["terminal"] == "ok" for turn in ran)
    assert refused > 0, "the budget never ran out: the test asked too little"
    limit = round(LIMIT_USD * 1e9)
    day = time.strftime("%Y-%m-%d", time.gmtime())
    async with Host.from_config(config, env={"CLAWHARNESS_STATE_DIR": str(tmp_path)}) as host:
        (state,) = await host.budget_states([f"day:{day}"])
        (row,) = await host.usage(by="day")
    # the figures, for the report (`pytest -rP` shows them)
    print(f"contention[{'postgres' if '://' in store_url else 'sqlite'}]: "
          f"{PROCESSES} processes x {TURNS} turns ({AT_ONCE} at once): {len(ran)} ran, "
          f"{refused} refused; spent ${state.spent.nano_usd / 1e9:.6f} of ${LIMIT_USD} "
          f"(one turn ${TURN_NANO / 1e9:.6f}); ledger turns {state.spent.turns}, "
          f"spend rows {row.turns}, left reserved {state.reserved}")
    # never over the limit; and the budget was used up to within a few turns of it
    assert state.spent.nano_usd <= limit
    assert state.spent.nano_usd > limit - PROCESSES * AT_ONCE * 2 * TURN_NANO
    # nothing lost: every turn that ran counted once, in the ledger and the spend rows
    assert state.reserved == Amount()
    assert state.spent.turns == row.turns == len(ran)
    assert row.nano_usd == state.spent.nano_usd == sum(
        math.ceil(turn["costUsd"] * 1e9) for turn in ran)
    assert len({turn["runId"] for turn in ran}) == len(ran)
