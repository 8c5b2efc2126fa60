"""An adoption is all or nothing: when the transcript append fails after the binding and
the native copy were written, both are taken back and the new session row goes too
(`clawharness.sessions.portable`, with the real `claude-cli` harness and SQLite)."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "harnesses" / "cli"))
from claude_session_files import SESSION, conversation, write_session

from clawharness.errors import StoreError
from clawharness.harnesses.cli.claude import claude_cli_harness
from clawharness.plugin_sdk.agent_harness_session_runtime import AdoptRequest
from clawharness.sessions.portable import adopt_into, plan_adoption
from clawharness.store import AppendOutcome, NewEntry
from clawharness.store.sqlite import SqliteStore


class FailingAppends(SqliteStore):
    """A real store whose transcript appends fail (a full disk, a lost connection)."""

    async def append_entries(self, session_key: str, session_id: str,
                             entries: Sequence[NewEntry], **kw: Any) -> list[AppendOutcome]:
        raise StoreError("disk full")


async def test_a_failed_append_takes_back_the_binding_the_copy_and_the_row(
        tmp_path: Path) -> None:
    source = write_session(tmp_path / "user" / "projects" / "p", conversation())
    store = FailingAppends(tmp_path / "host.db")
    await store.open()
    harness = claude_cli_harness(store=store)
    try:
        adoption = await harness.adopt_native_session(AdoptRequest(
            source=str(source), agent_id="main", workspace_dir=str(tmp_path / "ws"),
            state_dir=str(tmp_path / "state")))
        key = "agent:main:work"
        plan = plan_adoption(key, None, [], adoption)
        assert plan.kind == "create" and len(plan.entries) == 6
        with pytest.raises(StoreError, match="disk full"):
            await adopt_into(store, key, "main", None, adoption, plan, model_ref=None)
        assert await store.get_session(key) is None
        # the row is back to "bound to nothing" (a turn's lease lives on such a row)
        rows = await store.state_list("claude-cli.bindings")
        assert all(row.value.get("nativeSessionId") is None for row in rows)
        assert await harness.bindings.read("main", key) is None
        copies = list((tmp_path / "state").rglob(f"{SESSION}.jsonl"))
        assert copies == []
    finally:
        await harness.dispose()
        await store.close()
