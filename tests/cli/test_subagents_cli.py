"""`clawharness sessions list --children [KEY]` and `sessions kill KEY` read and write the
sub-agent registry in the store, for people and for scripts (the children themselves:
tests/subagents/)."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest
from cli_rig import assert_envelope, invoke, only_json, write_config

from clawharness.store import SubagentRecord, open_store

BOSS = "agent:main:boss"


@pytest.fixture
def config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("CLAWHARNESS_STATE_DIR", str(tmp_path / "state"))
    path = write_config(tmp_path, "http://127.0.0.1:9/v1")
    (tmp_path / "state").mkdir(exist_ok=True)

    async def seed() -> None:
        store = open_store(tmp_path / "state.db")
        await store.open()
        now = time.time()
        for i, (parent, beat) in enumerate(((BOSS, now), (BOSS, now - 600),
                                            ("agent:main:other", now))):
            await store.register_subagent(SubagentRecord(
                child_key=f"agent:main:subagent:{i}", parent_key=parent, run_id=f"run-{i}",
                agent_id="main", status="running", depth=1, task=f"task number {i}",
                label="triage" if i == 0 else None, owner="host-gone", created_at=now + i,
                heartbeat_at=beat))
        await store.mark_subagent("agent:main:subagent:2", "ok", when=("running",),
                                  result="all done")
        await store.close()

    asyncio.run(seed())
    return path


def test_children_for_people(config: Path) -> None:
    listed = invoke("sessions", "list", "--children", "boss", "--config", str(config))
    assert listed.exit_code == 0, listed.stdout
    rows = [line for line in listed.stdout.splitlines() if "agent:main:subagent:" in line]
    assert len(rows) == 2 and "triage" in rows[0] and "running" in rows[0]
    assert "lost" in rows[1]  # its host stopped beating ten minutes ago
    every = invoke("sessions", "list", "--children", "--config", str(config))
    assert "all done" in every.stdout and every.stdout.count("agent:main:subagent:") == 3

    killed = invoke("sessions", "kill", "agent:main:subagent:0", "--config", str(config))
    assert killed.exit_code == 0 and "killed agent:main:subagent:0" in killed.stdout
    again = invoke("sessions", "kill", "agent:main:subagent:0", "--config", str(config))
    assert again.exit_code == 0 and "had already ended" in again.stdout


def test_children_for_scripts(config: Path) -> None:
    data = only_json(invoke("sessions", "list", "--children", BOSS, "--config", str(config),
                            "--json"))
    assert [(c["childSessionKey"], c["status"]) for c in data] == [
        ("agent:main:subagent:0", "running"), ("agent:main:subagent:1", "lost")]
    assert data[0]["parentSessionKey"] == BOSS and data[0]["label"] == "triage"
    killed = only_json(invoke("sessions", "kill", "agent:main:subagent:1", "--config",
                              str(config), "--json"))
    assert [(k["childSessionKey"], k["status"]) for k in killed["killed"]] == [
        ("agent:main:subagent:1", "killed")]
    missing = invoke("sessions", "kill", "agent:main:nobody", "--config", str(config),
                     "--json")
    envelope = assert_envelope(missing, "subagent_error")
    assert "is not a sub-agent session" in envelope["message"]
