"""The CLI backend when the bound native session is gone (fake agent; the real CLI's
counterpart is tests/integration/cli/test_claude_cli_gone_session.py)."""

from __future__ import annotations

import asyncio
import json
import shutil
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from cli_support import Recorder, make_params

from clawharness.harnesses.cli.claude import claude_cli_harness, missing_conversation
from clawharness.plugin_sdk.agent_harness_cli import CliBackendHarness

FAKE = Path(__file__).resolve().parent / "fake_claude.py"
TIMEOUT = 20.0
KEY = ("main", "agent:main:main")
EARLIER = [
    {"role": "user", "content": [{"type": "text", "text": "remember the word heron"}]},
    {"role": "assistant", "content": [{"type": "text", "text": "noted: heron"}],
     "stopReason": "stop"},
]


class Rig:
    def __init__(self, tmp: Path) -> None:
        self.workspace = tmp / "ws"
        self.workspace.mkdir()
        self.state = tmp / "state"
        self.log = tmp / "fake.log"
        self.turns = tmp / "turns.log"
        self.harnesses: list[CliBackendHarness] = []

    def harness(self, **env: str) -> CliBackendHarness:
        harness = claude_cli_harness(state_dir=self.state / "plugin", config={
            "command": [sys.executable, str(FAKE)], "interruptGraceSeconds": 2,
            "env": {"FAKE_CLAUDE_LOG": str(self.log), "FAKE_CLAUDE_TURNS": str(self.turns),
                    **env}})
        self.harnesses.append(harness)
        return harness

    def params(self, prompt: str, rec: Recorder, **kw: Any) -> Any:
        return make_params(self.workspace, self.state, prompt=prompt, recorder=rec, **kw)

    async def run(self, harness: CliBackendHarness, params: Any) -> Any:
        return await asyncio.wait_for(harness.run_attempt(params), TIMEOUT)

    def starts(self) -> list[list[str]]:
        return [json.loads(line)["argv"] for line in self.log.read_text().splitlines()]

    def sent(self) -> list[dict[str, Any]]:
        return [json.loads(line) for line in self.turns.read_text().splitlines()]

    def move_config_dir(self) -> None:
        """What a new CLAUDE_CONFIG_DIR or a new machine does to the CLI's sessions."""
        config = self.state / "claude-cli" / "agents" / "main" / "claude-config"
        shutil.move(config, config.with_name("claude-config.moved"))


@pytest.fixture
async def rig(tmp_path: Path) -> AsyncIterator[Rig]:
    made = Rig(tmp_path)
    yield made
    for harness in made.harnesses:
        await harness.dispose()


def warnings_of(rec: Recorder) -> list[dict[str, Any]]:
    return [dict(e.data) for e in rec.events if e.stream == "warning"]


async def test_a_gone_conversation_is_dropped_and_the_turn_runs_on_a_fresh_one(
        rig: Rig) -> None:
    first = rig.harness()
    one = await rig.run(first, rig.params("text one", Recorder()))
    stale = one.extra["nativeSessionId"]
    await first.dispose()
    rig.move_config_dir()

    second = rig.harness()
    rec = Recorder()
    two = await rig.run(second, rig.params("text two", rec, history=EARLIER))
    assert two.terminal.kind == "ok", two.terminal
    assert two.assistant_texts == ["two "]
    fresh = two.extra["nativeSessionId"]
    assert fresh != stale
    assert (await second.binding(*KEY) or {})["nativeSessionId"] == fresh
    # one resume that failed, then one start without --resume
    assert "--resume" in rig.starts()[-2] and "--resume" not in rig.starts()[-1]
    # the fresh session's first turn carried the host transcript before the prompt
    sent = rig.sent()[-1]
    assert sent["session"] == fresh and sent["texts"][-1] == "text two"
    assert "remember the word heron" in sent["texts"][0]
    assert "noted: heron" in sent["texts"][0]
    # said once: the result, one agent event; the user message mirrored once
    [warning] = two.warnings
    assert stale in warning and "No conversation found" in warning
    [event] = warnings_of(rec)
    assert (event["code"], event["nativeSessionId"], event["recovered"]) == (
        "native_session_gone", stale, True)
    assert rec.roles() == ["user", "assistant"]

    # the next turn resumes the fresh session, with no warning and no transcript again
    rec3 = Recorder()
    three = await rig.run(second, rig.params("text three", rec3, history=EARLIER))
    assert three.terminal.kind == "ok" and three.warnings == []
    assert three.extra["nativeSessionId"] == fresh
    assert rig.sent()[-1]["texts"] == ["text three"]
    assert warnings_of(rec3) == []


async def test_a_transient_resume_failure_keeps_the_binding(rig: Rig) -> None:
    first = rig.harness()
    one = await rig.run(first, rig.params("text one", Recorder()))
    bound = one.extra["nativeSessionId"]
    await first.dispose()

    flaky = rig.harness(FAKE_CLAUDE_RESUME_FAILS="1")
    rec = Recorder()
    failed = await rig.run(flaky, rig.params("text two", rec))
    assert failed.terminal.kind == "failed"
    assert "Connection error" in (failed.terminal.error or "")
    assert failed.warnings == [] and warnings_of(rec) == []
    assert (await flaky.binding(*KEY) or {})["nativeSessionId"] == bound
    assert "--resume" in rig.starts()[-1]  # no fresh session was started
    await flaky.dispose()

    again = rig.harness()
    three = await rig.run(again, rig.params("text three", Recorder()))
    assert three.terminal.kind == "ok"
    assert three.extra["nativeSessionId"] == bound


async def test_a_turn_that_streamed_before_gone_is_not_replayed(rig: Rig) -> None:
    first = rig.harness()
    one = await rig.run(first, rig.params("text one", Recorder()))
    stale = one.extra["nativeSessionId"]
    await first.dispose()

    second = rig.harness()
    rec = Recorder()
    failed = await rig.run(second, rig.params("gone partial words", rec))
    assert failed.terminal.kind == "failed"
    assert "not repeated" in (failed.terminal.error or "")
    assert rec.partials == ["partial words"]
    starts = len(rig.starts())
    [event] = warnings_of(rec)
    assert event["recovered"] is False and event["nativeSessionId"] == stale
    assert failed.warnings == [event["message"]]
    # dropped all the same, and never written back
    assert (await second.binding(*KEY) or {}).get("nativeSessionId") is None

    rec2 = Recorder()
    two = await rig.run(second, rig.params("text again", rec2, history=EARLIER))
    assert two.terminal.kind == "ok" and two.warnings == []
    assert len(rig.starts()) == starts + 1 and "--resume" not in rig.starts()[-1]
    assert "remember the word heron" in rig.sent()[-1]["texts"][0]


async def test_a_missing_conversation_it_did_not_resume_is_an_ordinary_failure(
        rig: Rig) -> None:
    harness = rig.harness()
    rec = Recorder()
    failed = await rig.run(harness, rig.params("gone words", rec))
    assert failed.terminal.kind == "failed"
    assert "No conversation found" in (failed.terminal.error or "")
    assert failed.warnings == [] and warnings_of(rec) == []


async def test_a_first_native_session_on_a_session_with_history_gets_the_transcript(
        rig: Rig) -> None:
    harness = rig.harness()
    result = await rig.run(harness, rig.params("text hello", Recorder(), history=EARLIER))
    assert result.terminal.kind == "ok" and result.warnings == []
    texts = rig.sent()[-1]["texts"]
    assert texts[-1] == "text hello" and "noted: heron" in texts[0]
    await rig.run(harness, rig.params("text more", Recorder(), history=EARLIER))
    assert rig.sent()[-1]["texts"] == ["text more"]


def test_only_the_cli_s_own_words_for_a_missing_conversation_count() -> None:
    said = {"type": "result", "subtype": "error_during_execution", "is_error": True,
            "num_turns": 0, "session_id": "s-new",
            "errors": ["No conversation found with session ID: s-old"]}
    missing = missing_conversation(said)
    assert missing is not None and missing.session_id == "s-old"
    for other in (
        {**said, "errors": ["API Error: Connection error."]},
        {**said, "errors": ["Conversation not loaded: No conversation found with session ID: x"]},
        {**said, "is_error": False},
        {**said, "num_turns": 2},
        {**said, "type": "assistant"},
        {key: value for key, value in said.items() if key != "errors"},
    ):
        assert missing_conversation(other) is None, other
