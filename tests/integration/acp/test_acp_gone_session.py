"""A session whose ACP session is gone: the real claude-code-acp agent, started again
with a new CLAUDE_CONFIG_DIR, refuses `session/load` of the bound session ("Session not
found"); the turn goes on in a new ACP session that is given the host transcript."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from acp_rig import AcpRig, requires_claude_acp
from cli_support import Recorder

from clawharness.testing import ScriptedModelServer

pytestmark = [pytest.mark.integration, requires_claude_acp]

EARLIER = [
    {"role": "user", "content": [{"type": "text", "text": "remember the otter"}]},
    {"role": "assistant", "content": [{"type": "text", "text": "otter noted"}],
     "stopReason": "stop"},
]


@pytest.fixture
async def rigs(tmp_path: Path) -> AsyncIterator[list[AcpRig]]:
    made: list[AcpRig] = []
    yield made
    for rig in made:
        await rig.close()


def _messages_requests(server: ScriptedModelServer) -> list[str]:
    return [json.dumps(r.body) for r in server.requests if r.path.startswith("/v1/messages")
            and "count_tokens" not in r.path]


async def test_a_session_the_agent_cannot_load_continues_in_a_new_one(
        rigs: list[AcpRig], tmp_path: Path) -> None:
    async with ScriptedModelServer({"responses": [
        {"text": "otter noted", "match": "remember the otter"},
        {"text": "it was an otter", "match": "which animal"},
    ]}) as server:
        rig = AcpRig(tmp_path, server.url)
        rigs.append(rig)
        first = rig.harness({"claude": rig.claude_agent()})
        one = await rig.run(first, rig.params("remember the otter", Recorder()))
        assert one.terminal.kind == "ok", one.terminal
        stale = one.extra["nativeSessionId"]
        await first.dispose()

        moved = rig.claude_agent()
        moved["env"]["CLAUDE_CONFIG_DIR"] = str(tmp_path / "new-claude-config")
        second = rig.harness({"claude": moved})
        rec = Recorder()
        before = len(_messages_requests(server))
        two = await rig.run(second, rig.params("which animal was it?", rec, history=EARLIER))
        assert two.terminal.kind == "ok", two.terminal
        assert two.assistant_texts == ["it was an otter"]
        assert two.extra["nativeSessionId"] != stale
        binding = await second.binding("main", "agent:main:main")
        assert binding is not None and binding["nativeSessionId"] == two.extra["nativeSessionId"]
        [warning] = two.warnings
        assert stale in warning and "Session not found" in warning
        assert [e.data["code"] for e in rec.events if e.stream == "warning"] == [
            "native_session_gone"]
        assert [m["content"][0]["text"] for m in rec.mirrored] == [
            "which animal was it?", "it was an otter"]
        [request] = [r for r in _messages_requests(server)[before:] if "which animal" in r]
        assert "remember the otter" in request and "otter noted" in request
