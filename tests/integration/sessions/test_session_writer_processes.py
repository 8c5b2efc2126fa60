"""Real `clawharness agent` processes on one session, on SQLite and on PostgreSQL.

Eight processes started together on one new session, and eight on one existing session:
every turn succeeds, the transcript alternates user/assistant strictly, and every model
request (the scripted model server keeps them) carried every earlier turn. A holder
killed mid-turn is replaced once its lease expires; a holder paused past its lease
comes back to find its late write refused.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psycopg
import pytest

from clawharness.store import open_store
from clawharness.testing import ScriptedModelServer

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "store"))
from store_test_support import PG_URL, drop_schema, new_schema_name, pg_unavailable

pytestmark = pytest.mark.integration

SESSION = "agent:main:same"
#: short leases for the crash tests, so a dead holder is replaced within seconds; longer
#: than the longest event-loop stall of a turn here (a new process's first model answer
#: builds the openai SDK's models: about a second of CPU, more on a loaded machine)
LEASE_SECONDS = 4.0


@dataclass
class Rig:
    root: Path
    config: Path
    server: ScriptedModelServer
    store_url: str

    def agent(self, message: str) -> subprocess.Popen[str]:
        env = {**os.environ, "CLAWHARNESS_STATE_DIR": str(self.root / "state"),
               "PYTHONUNBUFFERED": "1"}
        return subprocess.Popen(
            [sys.executable, "-m", "clawharness", "agent", "--config", str(self.config),
             "--session", SESSION, "--json", "-m", message],
            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

    def transcript(self) -> list[tuple[str, str]]:
        """(role, text) of every entry of the session, read from the store."""
        async def read() -> list[tuple[str, str]]:
            store = open_store(self.store_url)
            await store.open()
            try:
                record = await store.get_session(SESSION)
                entries = [] if record is None else await store.read_entries(record.session_id)
                return [(e.role, e.text or "") for e in entries]
            finally:
                await store.close()

        return asyncio.run(read())

    def model_requests(self) -> list[list[str]]:
        """The text of each model request's user and assistant messages, in arrival order."""
        return [_message_texts(r.body) for r in self.server.requests
                if r.path.endswith("/chat/completions")]


def _message_texts(body: Any) -> list[str]:
    out: list[str] = []
    for item in body.get("messages") or []:
        if item.get("role") not in ("user", "assistant"):
            continue
        content = item.get("content")
        if isinstance(content, str):
            out.append(content)
        elif isinstance(content, list):
            out.append("".join(b.get("text", "") for b in content if isinstance(b, dict)))
    return out


def _script() -> dict[str, Any]:
    answers = [{"match": f"^{kind} {i}$", "text": f"reply to {kind} {i}"}
               for kind in ("seed", "new", "old", "after") for i in range(8)]
    return {"responses": [
        {"match": "^held$", "text": "late reply", "delay_ms": 3000},
        {"match": "^doomed$", "text": "never seen", "delay_ms": 60_000},
        *answers,
    ]}


@pytest.fixture(params=["sqlite", "postgres"])
def rig(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Rig]:
    schema = None
    if request.param == "postgres":
        if reason := pg_unavailable():
            pytest.skip(reason)
        schema = new_schema_name()
        with psycopg.connect(PG_URL, autocommit=True) as conn:
            conn.execute(f'CREATE SCHEMA "{schema}"')
        store_url = f"{PG_URL}?options=-csearch_path%3D{schema}"
    else:
        store_url = str(tmp_path / "state" / "clawharness.db")
    server = ScriptedModelServer(_script())
    try:
        with server.run_in_thread():
            config = tmp_path / "config.json"
            config.write_text(json.dumps({
                "models": {"providers": {"scripted": {
                    # Chat Completions: a new process's first answer costs the openai SDK
                    # less work than a Responses stream, and turns hold the session for it
                    "baseUrl": server.base_url_openai, "api": "openai-completions",
                    "apiKey": "k", "models": [{"id": "m"}]}}},
                "agents": {"defaults": {"model": "scripted/m",
                                        "workspace": str(tmp_path / "ws")}},
                "store": {"url": store_url},
            }))
            yield Rig(tmp_path, config, server, store_url)
    finally:
        if schema is not None:
            drop_schema(schema)


def _finish(procs: list[subprocess.Popen[str]]) -> list[dict[str, Any]]:
    results = []
    for proc in procs:
        out, err = proc.communicate(timeout=600)
        assert proc.returncode == 0, f"exit {proc.returncode}: {out}\n{err}"
        assert "Traceback" not in err, err
        results.append(json.loads(out.strip().splitlines()[-1]))
    return results


def _wait_for(condition: Callable[[], bool], what: str, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.02)


def _check_turns(rig: Rig, kind: str, before: list[tuple[str, str]]) -> None:
    entries = rig.transcript()
    assert entries[:len(before)] == before
    mine = entries[len(before):]
    assert [role for role, _ in mine] == ["user", "assistant"] * 8, mine
    asked = sorted(text for role, text in mine if role == "user")
    assert asked == [f"{kind} {i}" for i in range(8)]
    for (_, prompt), (_, reply) in zip(mine[::2], mine[1::2], strict=True):
        assert reply == f"reply to {prompt}"  # each reply follows its own prompt
    texts = [text for _, text in entries]
    requests = rig.model_requests()[-8:]
    for n, sent in enumerate(requests):
        # the n-th turn saw the whole transcript before it, and nothing of later turns
        assert sent == texts[:len(before) + 2 * n + 1]


def test_eight_processes_on_a_new_session_all_run_their_turn_in_order(rig: Rig) -> None:
    results = _finish([rig.agent(f"new {i}") for i in range(8)])
    assert [r["terminal"] for r in results] == ["ok"] * 8
    assert len({r["sessionId"] for r in results}) == 1  # created once
    _check_turns(rig, "new", [])


def test_eight_processes_on_an_existing_session_each_see_every_earlier_turn(rig: Rig) -> None:
    _finish([rig.agent("seed 0")])
    seeded = rig.transcript()
    assert seeded == [("user", "seed 0"), ("assistant", "reply to seed 0")]
    results = _finish([rig.agent(f"old {i}") for i in range(8)])
    assert [r["terminal"] for r in results] == ["ok"] * 8
    _check_turns(rig, "old", seeded)


def _short_leases(rig: Rig) -> None:
    config = json.loads(rig.config.read_text())
    config["sessions"] = {"writerLeaseSeconds": LEASE_SECONDS}
    rig.config.write_text(json.dumps(config))


def test_a_holder_killed_mid_turn_is_replaced_after_its_lease_expires(rig: Rig) -> None:
    _short_leases(rig)
    doomed = rig.agent("doomed")
    _wait_for(lambda: any(t[-1:] == ["doomed"] for t in rig.model_requests())
              and rig.transcript() == [("user", "doomed")],
              "the doomed turn to store its prompt and reach the model")
    doomed.send_signal(signal.SIGKILL)
    doomed.wait(timeout=30)
    killed_at = time.monotonic()
    [after] = _finish([rig.agent("after 0")])
    assert after["terminal"] == "ok" and after["text"] == "reply to after 0"
    # it could not start before the dead holder's lease ran out
    assert time.monotonic() - killed_at >= LEASE_SECONDS * 0.5
    # the replacement saw what the dead holder had stored: its prompt
    assert rig.model_requests()[-1] == ["doomed", "after 0"]
    assert rig.transcript() == [("user", "doomed"), ("user", "after 0"),
                                ("assistant", "reply to after 0")]


def test_a_holder_paused_past_its_lease_finds_its_late_write_refused(rig: Rig) -> None:
    _short_leases(rig)
    held = rig.agent("held")
    _wait_for(lambda: any(t[-1:] == ["held"] for t in rig.model_requests())
              and rig.transcript() == [("user", "held")],
              "the held turn to store its prompt and reach the model")
    held.send_signal(signal.SIGSTOP)  # frozen: no renewals, its reply waits in the socket
    try:
        [after] = _finish([rig.agent("after 1")])
        assert after["terminal"] == "ok"
        assert rig.model_requests()[-1] == ["held", "after 1"]
    finally:
        held.send_signal(signal.SIGCONT)
    out, err = held.communicate(timeout=120)
    assert held.returncode == 1, out + err
    report = json.loads(out.strip().splitlines()[-1])
    assert report["terminal"] == "failed"
    message = report["error"] if isinstance(report["error"], str) else report["error"]["message"]
    assert "no longer current" in message and "took the session over" in message
    assert "Traceback" not in err
    entries = rig.transcript()
    assert ("assistant", "late reply") not in entries
    assert entries == [("user", "held"), ("user", "after 1"), ("assistant", "reply to after 1")]
