"""Attempt terminals keep the strongest interruption, whatever order facts arrive in."""

from __future__ import annotations

from clawharness.attempt.terminal import (
    LegacyTerminalFlags,
    Terminal,
    TerminalFailure,
    agent_harness_attempt_terminal,
    merge_attempt_terminal,
    normalize_attempt_terminal,
    project_attempt_terminal,
    set_attempt_terminal_failure,
)
from clawharness.runtime_plan.classify import classify_agent_harness_terminal_outcome
from clawharness.runtime_plan.run_result import HarnessTurnOutcome


def test_an_ok_observation_never_clears_a_timeout() -> None:
    timeout = Terminal.timeout("prompt", "idle")
    assert merge_attempt_terminal(timeout, Terminal.ok()) is timeout


def test_an_external_abort_wins_the_timeout_source_and_marks_it_aborted() -> None:
    merged = merge_attempt_terminal(
        Terminal.aborted_by("external"), Terminal.timeout("prompt", "run_budget")
    )
    assert merged == Terminal.timeout("prompt", "external", aborted=True)


def test_the_abort_is_marked_whichever_fact_arrives_first() -> None:
    timeout_first = merge_attempt_terminal(
        Terminal.timeout("prompt", "runtime"), Terminal.aborted_by("runtime"))
    abort_first = merge_attempt_terminal(
        Terminal.aborted_by("runtime"), Terminal.timeout("prompt", "runtime"))
    assert timeout_first == abort_first == Terminal.timeout("prompt", "runtime", aborted=True)


def test_a_cleanup_abort_does_not_mark_a_timeout_aborted() -> None:
    merged = merge_attempt_terminal(
        Terminal.timeout("prompt", "idle"), Terminal.aborted_by("yield_cleanup"))
    assert merged == Terminal.timeout("prompt", "idle")


def test_a_tool_execution_observation_survives_a_later_failure() -> None:
    failed = Terminal.failed(TerminalFailure("boom", "prompt"))
    merged = merge_attempt_terminal(Terminal.timeout("tool_execution", "observation"), failed)
    assert merged.kind == "failed"
    assert (merged.error, merged.source, merged.timeout_observation) == (
        "boom", "prompt", "tool_execution")


def test_a_failure_is_kept_as_detail_under_a_stronger_abort() -> None:
    failed = Terminal.failed(TerminalFailure("boom", "prompt"))
    merged = merge_attempt_terminal(Terminal.aborted_by("external"), failed)
    assert merged == Terminal("aborted", source="external",
                              failure=TerminalFailure("boom", "prompt"))


def test_an_unranked_source_never_wins_precedence() -> None:
    merged = merge_attempt_terminal(
        Terminal.timeout("prompt", "idle"), Terminal.timeout("compaction", "a-new-source"))
    assert merged.source == "idle"
    assert merged.phase == "compaction"


def test_clearing_a_failure_falls_back_to_what_was_observed() -> None:
    failed = Terminal("failed", source="prompt", error="x", timeout_observation="compaction")
    assert set_attempt_terminal_failure(failed, None) == Terminal.timeout("compaction", "observation")
    assert set_attempt_terminal_failure(Terminal.failed(TerminalFailure("x")), None) == Terminal.ok()


def test_legacy_flags_normalise_and_project_back() -> None:
    terminal = normalize_attempt_terminal(
        LegacyTerminalFlags(timed_out=True, external_abort=True, prompt_error="x")
    )
    assert terminal == Terminal("timeout", source="external", phase="prompt", aborted=True,
                                failure=TerminalFailure("x", "prompt"))
    flags = project_attempt_terminal(terminal)
    assert flags.external_abort is True
    assert flags.interrupted is True
    assert flags.prompt_error == "x"
    assert flags.prompt_error_source == "prompt"
    assert agent_harness_attempt_terminal.normalize(LegacyTerminalFlags()) == Terminal.ok()


def test_a_timeout_observed_during_tools_is_not_a_timed_out_run() -> None:
    flags = project_attempt_terminal(Terminal.timeout("tool_execution", "observation"))
    assert flags.timed_out is False
    assert flags.timed_out_during_tool_execution is True
    assert flags.interrupted is False


def test_terminal_classification_needs_a_completed_turn_without_visible_text() -> None:
    classify = classify_agent_harness_terminal_outcome
    done = HarnessTurnOutcome(turn_completed=True)
    assert classify(HarnessTurnOutcome(turn_completed=True, assistant_texts=("  ",))) == "empty"
    assert classify(HarnessTurnOutcome(True, plan_text="1. do it")) == "planning-only"
    assert classify(HarnessTurnOutcome(True, reasoning_text="hmm")) == "reasoning-only"
    # NO_REPLY is deliberate output, not an empty turn.
    assert classify(HarnessTurnOutcome(True, assistant_texts=("NO_REPLY",))) is None
    assert classify(HarnessTurnOutcome(True, prompt_error="boom")) is None
    # A prompt error that is falsy in Python (False, 0) was still reported.
    assert classify(HarnessTurnOutcome(True, prompt_error=False)) is None
    assert classify(HarnessTurnOutcome(turn_completed=False)) is None
    assert classify(done) == "empty"


def test_the_blank_set_is_the_originals_not_str_strip() -> None:
    def classify(text: str) -> object:
        return classify_agent_harness_terminal_outcome(
            HarnessTurnOutcome(turn_completed=True, assistant_texts=(text,)))

    # U+FEFF is blank to the original; U+001F and NEL (U+0085) are text there.
    assert classify("\ufeff \u3000") == "empty"
    assert classify("\x1f") is None
    assert classify("\x85") is None
