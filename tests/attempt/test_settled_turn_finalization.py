"""Settled-turn finalization: once only, three context sources, fail-closed capabilities."""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from clawharness.attempt.finalize import (
    IncompleteTurnError,
    IncompleteTurnWarning,
    SettledTurnFinalizationRepeatedError,
    SettledTurnFinalized,
    check_finalization_context,
    run_settled_turn_finalization,
    should_finalize,
)
from clawharness.attempt.outcomes import ToolTerminalObserver
from clawharness.errors import AttemptSettledError
from clawharness.harness.capabilities import HostCapabilities
from clawharness.harness.types import AttemptParams, AttemptResult, AttemptTerminal, ResolvedModel
from clawharness.records.tool_calls import ToolCallMeta


class AllowAll:
    def check(self, tool_name: str) -> str | None:
        return None

    def needs_approval(self, tool_name: str, arguments: Any) -> str | None:
        return None


def make_params(tmp_path: Any) -> AttemptParams:
    run_id = f"run-{uuid.uuid4()}"
    caps = HostCapabilities(run_id=run_id, session_key="agent:main:main",
                            workspace_dir=str(tmp_path), policy=AllowAll(), approvals=None)
    return AttemptParams(
        run_id=run_id, session_key="agent:main:main", session_id="s1", agent_id="main",
        prompt="write the note", provider="openai", model_id="gpt-x",
        model=ResolvedModel("openai", "gpt-x"), workspace_dir=str(tmp_path),
        host_capabilities=caps, runtime_plan=None,
        tools=(), observe_tool_terminal=lambda _o: {},
    )


def settled(context: Any = None, **fields: Any) -> AttemptResult:
    base: dict[str, Any] = {
        "tool_metas": [ToolCallMeta("write")],
        "last_assistant": {"role": "assistant", "stopReason": "stop", "content": []},
    }
    base.update(fields)
    return AttemptResult(AttemptTerminal.ok(), "s1", settled_turn_finalization_context=context,
                         **base)


def answer(text: str = "The note is written.") -> dict[str, Any]:
    return {"assistant": {"role": "assistant", "stopReason": "stop",
                          "content": [{"type": "text", "text": text}]},
            "usage": {"input": 10, "output": 5}}


class Finalizer:
    id = "native"
    label = "Native"

    def __init__(self, result: Any = None, error: Exception | None = None) -> None:
        self.calls: list[dict[str, Any]] = []
        self.result = result if result is not None else answer()
        self.error = error

    async def finalize_settled_turn(self, *, attempt: AttemptParams,
                                    settled_attempt: AttemptResult) -> Any:
        self.calls.append({"attempt": attempt, "settled": settled_attempt})
        if self.error is not None:
            raise self.error
        return self.result


async def test_finalization_runs_once_with_no_tools_and_dead_capabilities(tmp_path: Any) -> None:
    harness = Finalizer()
    params = make_params(tmp_path)
    outcome = await run_settled_turn_finalization(harness, params, settled())
    assert isinstance(outcome, SettledTurnFinalized)
    assert outcome.text == "The note is written."
    (call,) = harness.calls
    attempt = call["attempt"]
    assert attempt.operation == "settled-tool-finalization"
    assert attempt.tools == () and attempt.observe_tool_terminal is None
    assert attempt.on_partial_reply is None and attempt.mirror is None
    with pytest.raises(AttemptSettledError):
        attempt.host_capabilities.bind_tool_surface([])
    assert not params.host_capabilities.settled  # the live attempt's own capability is untouched
    with pytest.raises(SettledTurnFinalizationRepeatedError):
        await run_settled_turn_finalization(harness, params, settled())
    assert len(harness.calls) == 1


async def test_openclaw_transcript_context_needs_messages(tmp_path: Any) -> None:
    harness = Finalizer()
    ok = settled({"source": "openclaw-transcript", "messages": [{"role": "user"}]})
    assert isinstance(await run_settled_turn_finalization(harness, make_params(tmp_path), ok),
                      SettledTurnFinalized)
    empty = settled({"source": "openclaw-transcript", "messages": []})
    outcome = await run_settled_turn_finalization(harness, make_params(tmp_path), empty)
    assert isinstance(outcome, IncompleteTurnWarning) and outcome.reason == "context-invalid"
    assert len(harness.calls) == 1


async def test_harness_context_passes_opaque_data_through(tmp_path: Any) -> None:
    harness = Finalizer()
    data = object()
    outcome = await run_settled_turn_finalization(
        harness, make_params(tmp_path), settled({"source": "harness", "data": data})
    )
    assert isinstance(outcome, SettledTurnFinalized)
    assert harness.calls[0]["settled"].settled_turn_finalization_context["data"] is data
    missing = await run_settled_turn_finalization(
        harness, make_params(tmp_path), settled({"source": "harness"})
    )
    assert isinstance(missing, IncompleteTurnWarning)


async def test_unavailable_context_is_refused_before_any_io(tmp_path: Any) -> None:
    harness = Finalizer()
    outcome = await run_settled_turn_finalization(
        harness, make_params(tmp_path), settled({"source": "unavailable"})
    )
    assert isinstance(outcome, IncompleteTurnWarning)
    assert outcome.reason == "context-unavailable"
    assert harness.calls == []


async def test_a_harness_without_the_capability_keeps_the_incomplete_turn_error(
    tmp_path: Any,
) -> None:
    class NoFinalizer:
        id = "plain"

    with pytest.raises(IncompleteTurnError) as caught:
        await run_settled_turn_finalization(NoFinalizer(), make_params(tmp_path), settled())
    assert "cannot safely finalize" in str(caught.value)
    assert caught.value.warning.side_effects is True  # a write ran


async def test_a_failing_finalizer_yields_a_side_effect_aware_warning(tmp_path: Any) -> None:
    observer = ToolTerminalObserver("r")
    observer({"toolName": "exec", "arguments": {"command": "rm -rf build"}, "outcome": "success"})
    outcome = await run_settled_turn_finalization(
        Finalizer(error=RuntimeError("native crash")), make_params(tmp_path), settled(),
        observer=observer,
    )
    assert isinstance(outcome, IncompleteTurnWarning)
    assert outcome.reason == "finalizer-failed" and outcome.side_effects
    assert "may have already been executed" in outcome.text
    with pytest.raises(AttributeError):
        outcome.text = "changed"  # type: ignore[misc]

    read_only = ToolTerminalObserver("r2")
    read_only({"toolName": "read", "arguments": {"path": "a"}, "outcome": "success"})
    quiet = await run_settled_turn_finalization(
        Finalizer(error=RuntimeError("x")), make_params(tmp_path), settled(), observer=read_only
    )
    assert isinstance(quiet, IncompleteTurnWarning)
    assert not quiet.side_effects and quiet.text.endswith("Please try again.")


@pytest.mark.parametrize(
    ("result", "reason"),
    [
        ({**answer(), "toolMediaUrls": ["x"]}, "result-rejected"),
        ({"assistant": {"role": "assistant", "stopReason": "length",
                        "content": [{"type": "text", "text": "cut"}]}}, "result-rejected"),
        (answer("NO_REPLY"), "empty"),
        ("not an object", "result-rejected"),
    ],
)
async def test_narrow_result_violations_become_warnings(
    tmp_path: Any, result: Any, reason: str
) -> None:
    outcome = await run_settled_turn_finalization(
        Finalizer(result=result), make_params(tmp_path), settled()
    )
    assert isinstance(outcome, IncompleteTurnWarning)
    assert outcome.reason == reason


def test_should_finalize_only_after_settled_tools_without_visible_text() -> None:
    assert should_finalize(settled())
    assert not should_finalize(settled(assistant_texts=["Done."]))
    assert not should_finalize(settled(assistant_texts=["NO_REPLY"]))
    assert not should_finalize(settled(tool_metas=[]))
    assert not should_finalize(settled(did_send_via_messaging_tool=True))
    assert not should_finalize(settled(last_tool_error={"toolName": "write"}))
    assert not should_finalize(settled(tool_metas=[ToolCallMeta("x", async_started=True)]))
    failed = AttemptResult(AttemptTerminal("failed", source="prompt"), "s1",
                           tool_metas=[ToolCallMeta("write")])
    assert not should_finalize(failed)


def test_context_check_is_pure_and_names_the_source() -> None:
    assert check_finalization_context(None).ok
    assert check_finalization_context({"source": "bogus"}).reason == "context-invalid"
    assert check_finalization_context({"source": "unavailable"}).source == "unavailable"
