"""`/compact` on a Codex session: the host sends Codex `thread/compact/start` on the bound
thread and waits for Codex to finish; Codex summarises with its own model call, and its
next turn carries that summary instead of the thread's history (docs/compaction.md)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from codex_rig import CODEX_BIN
from test_codex_through_host import host_config

from clawharness.context import SUMMARY_ROLE
from clawharness.host import Host
from clawharness.testing import ScriptedModelServer

pytestmark = [pytest.mark.integration,
              pytest.mark.skipif(not CODEX_BIN.exists(), reason="run scripts/native-runtimes.sh")]

SUMMARY = "CODEX-NATIVE-SUMMARY: the user said hello."


async def test_compact_on_a_codex_session_is_codex_s_own_compaction(tmp_path: Path) -> None:
    script = {"responses": [{"text": "hello from codex"}, {"text": SUMMARY},
                            {"text": "after compaction"}]}
    async with ScriptedModelServer(script) as server:
        path = host_config(tmp_path, server.base_url_openai)
        async with Host.from_config(path, env={"CLAWHARNESS_STATE_DIR": str(tmp_path)}) as host:
            first = await host.run_turn("codex", "say hello, my code word is w9x")
            assert first.runtime == "codex" and first.terminal == "ok"
            result = await host.compact_session("codex")
            assert result.compacted, result.reason
            assert result.reason == "native (codex thread/compact/start)"
            # Codex made its own summarising call
            assert len(server.requests) == 2
            assert "w9x" in json.dumps(server.requests[1].body)
            after = await host.run_turn("codex", "and now?")
            assert after.text == "after compaction"
            assert SUMMARY in json.dumps(server.requests[-1].body)
            # the host transcript keeps everything and gets no summary of its own
            entries = await host.history("codex")
            assert not [e for e in entries if e.role == SUMMARY_ROLE]
            assert [e.text for e in entries if e.role == "user"][:1] == [
                "say hello, my code word is w9x"]
