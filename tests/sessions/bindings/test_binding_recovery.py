"""A native session its runtime reported gone: the shared recovery every harness uses."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import Any

import pytest
from binding_clock import FakeClock

from clawharness.config.schema import ToolsConfig
from clawharness.harness.capabilities import HostCapabilities
from clawharness.harness.types import (
    AgentEvent,
    AttemptParams,
    AttemptResult,
    AttemptTerminal,
    ResolvedModel,
)
from clawharness.sessions.bindings import (
    LostLeaseError,
    NativeSessionBindingLifecycle,
    NativeSessionGone,
    native_session_recovery,
)
from clawharness.tools.policy import EffectiveToolPolicy

KEY = "main:agent:main:chat"
GONE = NativeSessionGone("native-old", "No conversation found with session ID: native-old")
HISTORY = [{"role": "user", "content": [{"type": "text", "text": "remember the lark"}]}]


def attempt(tmp_path: Path, events: list[AgentEvent]) -> AttemptParams:
    caps = HostCapabilities(run_id="run-1", session_key="agent:main:chat",
                            workspace_dir=str(tmp_path),
                            policy=EffectiveToolPolicy(ToolsConfig(),
                                                       workspace_dir=str(tmp_path)),
                            approvals=None)
    return AttemptParams(
        run_id="run-1", session_key="agent:main:chat", session_id="s-1", agent_id="main",
        prompt="hi", provider="anthropic", model_id="m",
        model=ResolvedModel(provider="anthropic", model_id="m"), workspace_dir=str(tmp_path),
        host_capabilities=caps, runtime_plan=None, history=HISTORY,
        on_agent_event=events.append)


def keep(current: Any, _lease: Any) -> Any:
    return current


async def bound(lifecycle: NativeSessionBindingLifecycle[Any], native: str = "native-old") -> None:
    await lifecycle.state.register_if_absent(KEY, {"nativeSessionId": native, "cwd": "/w"})


async def test_gone_drops_the_binding_under_the_turn_s_lease_and_warns_once(
        lifecycle: NativeSessionBindingLifecycle[Any], tmp_path: Path,
        caplog: pytest.LogCaptureFixture) -> None:
    await bound(lifecycle)
    events: list[AgentEvent] = []
    recovery = native_session_recovery(attempt(tmp_path, events), harness_id="claude-cli",
                                       lifecycle=lifecycle, key=KEY)

    async def turn() -> Any:
        assert_lease = lifecycle.capture_lease_assertion(KEY)
        with caplog.at_level(logging.WARNING, logger="clawharness.sessions.bindings"):
            outcome = await recovery.session_gone(GONE)
        assert_lease()  # the turn still owns the row: it writes the fresh binding later
        return outcome

    outcome = await lifecycle.with_lease(KEY, turn, prepare_lease=keep)
    assert (outcome.start_fresh, outcome.dropped, outcome.error) == (True, True, None)
    assert await lifecycle.read(KEY) == {"nativeSessionId": None}
    assert [r.getMessage().count("native session is gone") for r in caplog.records] == [1]
    assert "native-old" in caplog.records[0].getMessage()
    [event] = events
    assert event.stream == "warning"
    assert event.data["code"] == "native_session_gone" and event.data["recovered"] is True
    result = recovery.annotate(recovery.annotate(AttemptResult(AttemptTerminal.ok(), "s-1")))
    assert result.warnings == [outcome.warning]
    context = recovery.context()
    assert context is not None and "remember the lark" in context


async def test_a_binding_rewritten_meanwhile_is_not_dropped(
        lifecycle: NativeSessionBindingLifecycle[Any], tmp_path: Path) -> None:
    await bound(lifecycle, native="native-newer")
    recovery = native_session_recovery(attempt(tmp_path, []), harness_id="acp",
                                       lifecycle=lifecycle, key=KEY)
    outcome = await lifecycle.with_lease(KEY, lambda: recovery.session_gone(GONE),
                                         prepare_lease=keep)
    assert outcome.dropped is False and "no binding names it" in outcome.warning
    assert (await lifecycle.read(KEY) or {})["nativeSessionId"] == "native-newer"


@pytest.mark.parametrize("did", ["output", "tool"])
async def test_a_turn_that_already_did_something_is_not_repeated(
        lifecycle: NativeSessionBindingLifecycle[Any], tmp_path: Path, did: str) -> None:
    await bound(lifecycle)
    events: list[AgentEvent] = []
    recovery = native_session_recovery(attempt(tmp_path, events), harness_id="claude-cli",
                                       lifecycle=lifecycle, key=KEY)
    if did == "output":
        recovery.progress.note_output()
    else:
        recovery.progress.note_tool()
    outcome = await lifecycle.with_lease(KEY, lambda: recovery.session_gone(GONE),
                                         prepare_lease=keep)
    assert outcome.start_fresh is False and outcome.error == outcome.warning
    assert "not repeated" in outcome.warning
    assert ("streamed output" if did == "output" else "started a tool") in outcome.warning
    assert events[0].data["recovered"] is False
    # the stale binding goes all the same: the next turn starts fresh
    assert await lifecycle.read(KEY) == {"nativeSessionId": None}


async def test_a_second_gone_in_one_attempt_never_loops(
        lifecycle: NativeSessionBindingLifecycle[Any], tmp_path: Path) -> None:
    await bound(lifecycle)
    events: list[AgentEvent] = []
    recovery = native_session_recovery(attempt(tmp_path, events), harness_id="acp",
                                       lifecycle=lifecycle, key=KEY)

    async def twice() -> Any:
        await recovery.session_gone(GONE)
        return await recovery.session_gone(NativeSessionGone("native-new", "gone too"))

    again = await lifecycle.with_lease(KEY, twice, prepare_lease=keep)
    assert again.start_fresh is False and "native-new" in (again.error or "")
    assert len(events) == 1 and len(recovery.warnings) == 1


async def test_a_lost_lease_fails_closed_and_keeps_the_binding(
        lifecycle: NativeSessionBindingLifecycle[Any], clock: FakeClock,
        tmp_path: Path) -> None:
    await bound(lifecycle)
    events: list[AgentEvent] = []
    recovery = native_session_recovery(attempt(tmp_path, events), harness_id="claude-cli",
                                       lifecycle=lifecycle, key=KEY)

    async def late() -> Any:
        clock.advance(lifecycle.timings.stale * 2)  # the heartbeat finds the lease expired
        await asyncio.sleep(0)
        return await recovery.session_gone(GONE)

    with pytest.raises(LostLeaseError):
        await lifecycle.with_lease(KEY, late, prepare_lease=keep)
    assert (await lifecycle.read(KEY) or {})["nativeSessionId"] == "native-old"
    assert events == [] and recovery.warnings == []
