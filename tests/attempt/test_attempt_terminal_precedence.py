"""Attempt terminals keep the strongest interruption, whatever order facts arrive in."""

from __future__ import annotations

from clawharness._jsvalue import UNDEFINED
from clawharness.attempt.classify import classify_agent_harness_terminal_outcome
from clawharness.attempt.terminal import (
    agent_harness_attempt_terminal,
    merge_attempt_terminal,
    normalize_attempt_terminal,
    project_attempt_terminal,
)


def test_an_ok_observation_never_clears_a_timeout() -> None:
    timeout = {"kind": "timeout", "phase": "prompt", "source": "idle"}
    assert merge_attempt_terminal(timeout, {"kind": "ok"}) is timeout


def test_an_external_abort_wins_the_timeout_source_and_marks_it_aborted() -> None:
    merged = merge_attempt_terminal(
        {"kind": "aborted", "source": "external"},
        {"kind": "timeout", "phase": "prompt", "source": "run_budget"},
    )
    assert merged == {"kind": "timeout", "phase": "prompt", "source": "external", "aborted": True}


def test_a_tool_execution_observation_survives_a_later_failure() -> None:
    merged = merge_attempt_terminal(
        {"kind": "timeout", "phase": "tool_execution", "source": "observation"},
        {"kind": "failed", "error": "boom", "source": "prompt"},
    )
    assert merged == {
        "kind": "failed",
        "error": "boom",
        "source": "prompt",
        "timeoutObservation": "tool_execution",
    }


def test_legacy_flags_normalise_and_project_back() -> None:
    terminal = normalize_attempt_terminal(
        {"timedOut": True, "externalAbort": True, "promptError": "x"}
    )
    assert terminal == {
        "kind": "timeout",
        "phase": "prompt",
        "source": "external",
        "aborted": True,
        "failure": {"error": "x", "source": "prompt"},
    }
    flags = project_attempt_terminal(terminal)
    assert flags["externalAbort"] is True
    assert flags["interrupted"] is True
    assert flags["promptError"] == "x"
    assert agent_harness_attempt_terminal.normalize({}) == {"kind": "ok"}


def test_terminal_classification_needs_a_completed_turn_without_visible_text() -> None:
    assert (
        classify_agent_harness_terminal_outcome({"turnCompleted": True, "assistantTexts": ["  "]})
        == "empty"
    )
    assert (
        classify_agent_harness_terminal_outcome(
            {"turnCompleted": True, "assistantTexts": [], "planText": "1. do it"}
        )
        == "planning-only"
    )
    assert (
        classify_agent_harness_terminal_outcome(
            {"turnCompleted": True, "assistantTexts": [], "reasoningText": "hmm"}
        )
        == "reasoning-only"
    )
    # NO_REPLY is deliberate output, not an empty turn.
    assert (
        classify_agent_harness_terminal_outcome(
            {"turnCompleted": True, "assistantTexts": ["NO_REPLY"]}
        )
        is UNDEFINED
    )
    assert (
        classify_agent_harness_terminal_outcome(
            {"turnCompleted": True, "assistantTexts": [], "promptError": "boom"}
        )
        is UNDEFINED
    )
