"""A session whose Codex thread is gone: the real app-server on a new CODEX_HOME does not
know the bound thread, so `thread/resume` fails; the turn goes on in a new thread."""

from __future__ import annotations

from typing import Any

import pytest
from codex_rig import MakeRig, conversation

from clawharness.harnesses.codex.bindings import binding_key
from clawharness.harnesses.codex.harness import CodexHarness

pytestmark = pytest.mark.integration

EARLIER = [
    {"role": "user", "content": [{"type": "text", "text": "remember the colour teal"}]},
    {"role": "assistant", "content": [{"type": "text", "text": "teal, noted"}],
     "stopReason": "stop"},
]
KEY = binding_key("main", "agent:main:s1")


async def _thread_of(harness: CodexHarness) -> Any:
    record = await harness.bindings.read(KEY)
    return record.get("threadId") if record else None


async def test_an_unknown_thread_is_dropped_and_the_turn_runs_on_a_new_one(
        make_rig: MakeRig) -> None:
    rig = await make_rig({"responses": [
        {"text": "teal, noted", "match": "remember the colour teal"},
        {"text": "it was teal", "match": "which colour"},
        {"text": "still here", "match": "anything else"}]})
    one = await rig.harness.run_attempt(rig.attempt("remember the colour teal").params)
    assert one.terminal.kind == "ok", one.terminal
    stale = one.extra["codexThreadId"]
    await rig.harness.pool.close()

    # the same bindings, a new CODEX_HOME root: Codex has no rollout of that thread
    moved = CodexHarness(rig.harness.config, bindings=rig.harness.bindings,
                         home_root=rig.harness.pool.home_root / "moved")
    try:
        attempt = rig.attempt("which colour was it?", history=EARLIER)
        two = await moved.run_attempt(attempt.params)
        assert two.terminal.kind == "ok", two.terminal
        assert two.assistant_texts == ["it was teal"]
        fresh = two.extra["codexThreadId"]
        assert fresh != stale and await _thread_of(moved) == fresh
        [warning] = two.warnings
        assert stale in warning and "no rollout found" in warning
        [event] = [e.data for e in attempt.events if e.stream == "warning"]
        assert (event["code"], event["nativeSessionId"], event["recovered"]) == (
            "native_session_gone", stale, True)
        # the new thread's first request carried the host transcript before the prompt
        [(role, text)] = conversation(rig.model_requests()[-1])
        assert role == "user" and text.endswith("which colour was it?")
        assert "remember the colour teal" in text and "teal, noted" in text
        assert [m["content"][0]["text"] for m in attempt.mirrored.values()
                if m["role"] == "user"] == ["which colour was it?"]

        three_attempt = rig.attempt("anything else?", history=EARLIER)
        three = await moved.run_attempt(three_attempt.params)
        assert three.terminal.kind == "ok" and three.warnings == []
        assert three.extra["codexThreadId"] == fresh
        assert conversation(rig.model_requests()[-1])[-1] == ("user", "anything else?")
    finally:
        await moved.pool.close()


async def test_a_resume_failure_in_other_words_keeps_the_binding(make_rig: MakeRig) -> None:
    rig = await make_rig({"responses": [{"text": "hello", "match": "hi"}]})
    lifecycle = await rig.harness.bindings.lifecycle()

    def malformed(_current: Any, _token: Any) -> tuple[None, dict[str, Any]]:
        return None, {"state": "active", "sessionId": "sid-agent:main:s1",
                      "threadId": "not-a-thread-id"}

    await lifecycle.transact(KEY, malformed)
    attempt = rig.attempt("hi")
    failed = await rig.harness.run_attempt(attempt.params)
    assert failed.terminal.kind == "failed"
    assert "invalid session id" in (failed.terminal.error or "")
    assert failed.warnings == []
    assert [e for e in attempt.events if e.stream == "warning"] == []
    assert await _thread_of(rig.harness) == "not-a-thread-id"
    assert rig.server.requests == []  # nothing reached the model
