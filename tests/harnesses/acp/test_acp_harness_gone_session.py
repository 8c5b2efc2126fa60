"""The `acp` harness when the bound ACP session is gone or cannot be loaded (fake agent;
the real agent's counterpart is tests/integration/acp/test_acp_gone_session.py)."""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from acp import RequestError

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "cli"))

from cli_support import Recorder, make_params

from clawharness.harnesses.acp.harness import AcpHarness, load_refused_as_gone

FAKE = Path(__file__).resolve().parent / "fake_acp_agent.py"
TIMEOUT = 20.0
KEY = ("main", "agent:main:main")
EARLIER = [
    {"role": "user", "content": [{"type": "text", "text": "remember the fox"}]},
    {"role": "assistant", "content": [{"type": "text", "text": "fox remembered"}],
     "stopReason": "stop"},
]


class Rig:
    def __init__(self, tmp: Path) -> None:
        self.workspace = tmp / "ws"
        self.workspace.mkdir()
        self.state = tmp / "state"
        self.log = tmp / "acp.log"
        self.harnesses: list[AcpHarness] = []

    def harness(self, **env: str) -> AcpHarness:
        agents = {"fake": {"command": [sys.executable, str(FAKE)],
                           "env": {"FAKE_ACP_LOG": str(self.log), **env}}}
        harness = AcpHarness(state_dir=self.state / "plugin",
                             config={"agents": agents, "shutdownGraceSeconds": 0.5})
        self.harnesses.append(harness)
        return harness

    def params(self, prompt: str, rec: Recorder, **kw: Any) -> Any:
        return make_params(self.workspace, self.state, prompt=prompt, recorder=rec,
                           provider="acp", model_id="fake", **kw)

    async def run(self, harness: AcpHarness, params: Any) -> Any:
        return await asyncio.wait_for(harness.run_attempt(params), TIMEOUT)

    def calls(self) -> list[dict[str, Any]]:
        return [json.loads(line) for line in self.log.read_text().splitlines()]

    def forget_sessions(self) -> None:
        """The agent's own store is lost (a new HOME, a new machine)."""
        for history in self.state.rglob("sessions.json"):
            history.unlink()


@pytest.fixture
async def rig(tmp_path: Path) -> AsyncIterator[Rig]:
    made = Rig(tmp_path)
    yield made
    for harness in made.harnesses:
        await harness.dispose()


async def _first_turn(rig: Rig) -> str:
    first = rig.harness()
    one = await rig.run(first, rig.params("text hello", Recorder()))
    assert one.terminal.kind == "ok", one.terminal
    await first.dispose()
    return str(one.extra["nativeSessionId"])


@pytest.mark.parametrize("cause", ["unknown-session", "load-unsupported"])
async def test_a_session_that_cannot_be_loaded_is_dropped_and_the_turn_starts_anew(
        rig: Rig, cause: str) -> None:
    stale = await _first_turn(rig)
    if cause == "unknown-session":
        rig.forget_sessions()
    second = rig.harness(**({"FAKE_ACP_LOAD": "unsupported"}
                            if cause == "load-unsupported" else {}))
    rec = Recorder()
    two = await rig.run(second, rig.params("text again", rec, history=EARLIER))
    assert two.terminal.kind == "ok", two.terminal
    assert two.assistant_texts == ["again "]
    fresh = two.extra["nativeSessionId"]
    assert fresh != stale
    assert (await second.binding(*KEY) or {})["nativeSessionId"] == fresh
    [warning] = two.warnings
    assert stale in warning
    [event] = [e.data for e in rec.events if e.stream == "warning"]
    assert (event["code"], event["recovered"]) == ("native_session_gone", True)
    [prompt] = [c for c in rig.calls() if c["method"] == "session/prompt"][-1:]
    assert prompt["blocks"][-1] == "text again"
    assert "remember the fox" in prompt["blocks"][0] and "fox remembered" in prompt["blocks"][0]
    assert rec.roles() == ["user", "assistant"]

    three = await rig.run(second, rig.params("text more", Recorder(), history=EARLIER))
    assert three.terminal.kind == "ok" and three.warnings == []
    assert three.extra["nativeSessionId"] == fresh
    assert [c for c in rig.calls() if c["method"] == "session/prompt"][-1]["blocks"] == [
        "text more"]


async def test_a_load_failure_in_other_words_fails_the_turn_and_keeps_the_binding(
        rig: Rig) -> None:
    stale = await _first_turn(rig)
    broken = rig.harness(FAKE_ACP_LOAD="broken")
    rec = Recorder()
    failed = await rig.run(broken, rig.params("text again", rec))
    assert failed.terminal.kind == "failed"
    assert "database is locked" in (failed.terminal.error or "")
    assert "binding is kept" in (failed.terminal.error or "")
    assert failed.warnings == [] and [e for e in rec.events if e.stream == "warning"] == []
    assert (await broken.binding(*KEY) or {})["nativeSessionId"] == stale
    assert [c["method"] for c in rig.calls()][-1] == "session/load"  # no session/new
    await broken.dispose()

    healthy = rig.harness()
    again = await rig.run(healthy, rig.params("text again", Recorder()))
    assert again.terminal.kind == "ok" and again.extra["nativeSessionId"] == stale


def test_only_an_agent_s_word_for_an_unknown_session_counts_as_gone() -> None:
    assert load_refused_as_gone(RequestError.resource_not_found("s1")) is not None
    assert load_refused_as_gone(RequestError.method_not_found("session/load")) is not None
    # claude-code-acp: a thrown "Session not found" arrives as an internal error
    assert load_refused_as_gone(RequestError.internal_error(
        {"details": "Session not found"})) is not None
    for transient in (RequestError.internal_error({"details": "database is locked"}),
                      RequestError.internal_error(None),
                      RequestError.invalid_params({"cwd": "must be absolute"}),
                      RequestError.auth_required()):
        assert load_refused_as_gone(transient) is None, transient
