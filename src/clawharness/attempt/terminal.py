"""The closed attempt terminal: how an attempt ended, with sticky precedence.

A `Terminal` is one of:

- ``ok`` (optionally with a `settlement_warning`);
- ``aborted``: `source` runtime | external | yield_cleanup, optional `failure` and
  `timeout_observation`;
- ``timeout``: `phase` prompt | tool_execution | compaction, `source` runtime |
  run_budget | idle | external | observation, `aborted` when the timeout also aborted
  the run, optional `failure`;
- ``failed``: `source` and `error` of the failure, optional `timeout_observation`.

Observations merge into one owner so that a stronger interruption (a timeout, an
external abort) is never overwritten by a weaker later fact. Harnesses that still
report the deprecated flat booleans (`aborted`, `timedOut`, `promptError`, ...) are
normalised from `LegacyTerminalFlags`, and `project_attempt_terminal` turns a terminal
back into those flags for legacy event consumers.

Sources and phases are open strings: a harness may report one this host does not rank,
and an unranked name never wins a precedence comparison.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Literal

__all__ = [
    "AttemptTerminalHelpers",
    "LegacyTerminalFlags",
    "Terminal",
    "TerminalFailure",
    "TerminalKind",
    "agent_harness_attempt_terminal",
    "merge_attempt_terminal",
    "normalize_attempt_terminal",
    "project_attempt_terminal",
    "set_attempt_terminal_failure",
]

TerminalKind = Literal["ok", "aborted", "timeout", "failed"]

_KIND_RANK = {"ok": 0, "failed": 1, "aborted": 2, "timeout": 3}
_PHASE_RANK = {"prompt": 0, "tool_execution": 1, "compaction": 2}
_TIMEOUT_SOURCE_RANK = {"observation": 0, "runtime": 1, "idle": 2, "run_budget": 3, "external": 4}
_ABORT_SOURCE_RANK = {"yield_cleanup": 0, "runtime": 1, "external": 2}


@dataclass(frozen=True, slots=True)
class TerminalFailure:
    """What failed and where (`source`: prompt, compaction, ...). `error` is opaque: a
    message, an exception or a JSON detail, exactly as the harness reported it."""

    error: object
    source: str | None = None


@dataclass(frozen=True, slots=True)
class Terminal:
    """How one attempt ended. Build one with the classmethods; fields a kind does not
    use stay at their defaults."""

    kind: TerminalKind
    source: str | None = None
    phase: str | None = None
    #: timeout only: the timeout also aborted the run
    aborted: bool = False
    #: failed only: the error itself (aborted and timeout carry it in `failure`)
    error: object = None
    #: aborted and timeout: the failure reported before or while they happened
    failure: TerminalFailure | None = None
    #: aborted and failed: a tool-execution or compaction timeout observed on the way
    timeout_observation: str | None = None
    #: ok only: a warning from settling the attempt
    settlement_warning: object = None

    @classmethod
    def ok(cls) -> Terminal:
        return cls("ok")

    @classmethod
    def timeout(cls, phase: str | None, source: str | None, *, aborted: bool = False) -> Terminal:
        return cls("timeout", source=source, phase=phase, aborted=aborted)

    @classmethod
    def aborted_by(cls, source: str | None) -> Terminal:
        return cls("aborted", source=source)

    @classmethod
    def failed(cls, failure: TerminalFailure) -> Terminal:
        return cls("failed", source=failure.source, error=failure.error)


@dataclass(frozen=True, slots=True)
class LegacyTerminalFlags:
    """The deprecated flat fields a harness result may still carry instead of a terminal."""

    aborted: bool = False
    external_abort: bool = False
    timed_out: bool = False
    timed_out_during_compaction: bool = False
    timed_out_during_tool_execution: bool = False
    timed_out_by_run_budget: bool = False
    idle_timed_out: bool = False
    cleanup_yield_aborted: bool = False
    interrupted: bool = False
    failed: bool = False
    #: None when no prompt error was reported
    prompt_error: object = None
    prompt_error_source: str | None = None


def _rank_gt(table: Mapping[str, int], left: str | None, right: str | None, *,
             or_equal: bool = False) -> bool:
    a = table.get(left) if left is not None else None
    b = table.get(right) if right is not None else None
    if a is None or b is None:
        return False
    return a >= b if or_equal else a > b


def _merge_phase(phase: str | None, observation: str | None) -> str | None:
    if observation and _rank_gt(_PHASE_RANK, observation, phase):
        return observation
    return phase


def _failure_of(terminal: Terminal) -> TerminalFailure | None:
    if terminal.kind == "failed":
        return TerminalFailure(error=terminal.error, source=terminal.source)
    if terminal.kind == "ok":
        return None
    return terminal.failure


def _with_failure(terminal: Terminal, failure: TerminalFailure | None) -> Terminal:
    if failure is None or terminal.kind == "ok":
        return terminal
    if terminal.kind == "failed":
        return replace(terminal, error=failure.error, source=failure.source)
    if terminal.failure is failure:
        return terminal
    return replace(terminal, failure=failure)


def _with_timeout_observation(terminal: Terminal, phase: str | None) -> Terminal:
    compaction = terminal.timeout_observation == "compaction" or phase == "compaction"
    observation = "compaction" if compaction else "tool_execution"
    if terminal.timeout_observation == observation:
        return terminal
    return replace(terminal, timeout_observation=observation)


def _has_timeout_abort(terminal: Terminal) -> bool:
    return terminal.kind == "timeout" and terminal.source != "observation" and terminal.aborted


def set_attempt_terminal_failure(terminal: Terminal, failure: TerminalFailure | None) -> Terminal:
    """Replace the failure detail without weakening a stronger interruption.

    Clearing the failure (None) of a failed terminal falls back to what else was
    observed: the timeout observation, or ok.
    """
    kind = terminal.kind
    if failure is None:
        if kind == "failed":
            if terminal.timeout_observation:
                return Terminal.timeout(terminal.timeout_observation, "observation")
            return Terminal.ok()
        if kind in ("aborted", "timeout") and terminal.failure is not None:
            return replace(terminal, failure=None)
        return terminal
    if kind == "timeout" and terminal.source == "observation":
        return replace(Terminal.failed(failure), timeout_observation=terminal.phase)
    if kind in ("failed", "ok"):
        observation = terminal.timeout_observation if kind == "failed" else None
        return replace(Terminal.failed(failure), timeout_observation=observation or None)
    return replace(terminal, failure=failure)


def _merge_timeouts(current: Terminal, incoming: Terminal,
                    failure: TerminalFailure | None) -> Terminal:
    phase = (incoming.phase if _rank_gt(_PHASE_RANK, incoming.phase, current.phase)
             else current.phase)
    selected = (incoming if _rank_gt(_TIMEOUT_SOURCE_RANK, incoming.source, current.source)
                else current)
    if selected.source == "observation":
        compaction = current.phase == "compaction" or incoming.phase == "compaction"
        observed = Terminal.timeout("compaction" if compaction else "tool_execution",
                                    "observation")
        return _with_failure(observed, failure)
    merged = Terminal.timeout(phase, selected.source,
                              aborted=_has_timeout_abort(current) or _has_timeout_abort(incoming))
    return _with_failure(merged, failure)


def _timeout_over_interruption(timeout: Terminal, other: Terminal,
                               failure: TerminalFailure | None) -> Terminal:
    """A real timeout meets an abort or failure (in either order): the timeout owns the
    terminal, an external abort owns its source, and any non-cleanup abort marks it."""
    external = other.kind == "aborted" and other.source == "external"
    aborted = ((other.kind == "aborted" and other.source != "yield_cleanup")
               or timeout.aborted)
    merged = replace(
        timeout,
        phase=_merge_phase(timeout.phase, other.timeout_observation),
        source="external" if external else timeout.source,
        aborted=aborted,
    )
    return _with_failure(merged, failure)


def merge_attempt_terminal(current: Terminal, incoming: Terminal) -> Terminal:
    """Merge a new observation into the attempt's terminal, keeping precedence in one place."""
    if incoming.kind == "ok":
        return current
    incoming_failure = _failure_of(incoming)
    failure = incoming_failure if incoming_failure is not None else _failure_of(current)
    current_observing = current.kind == "timeout" and current.source == "observation"
    incoming_observing = incoming.kind == "timeout" and incoming.source == "observation"

    if incoming_observing and current.kind != "timeout":
        if current.kind == "ok":
            return _with_failure(incoming, failure)
        return _with_failure(_with_timeout_observation(current, incoming.phase), failure)

    if current_observing and incoming.kind != "timeout":
        if incoming.kind in ("failed", "aborted"):
            observed = _with_timeout_observation(incoming, current.phase)
            return _with_failure(observed, failure)
        return _with_failure(incoming, failure)

    if current.kind == "timeout" and incoming.kind == "timeout":
        return _merge_timeouts(current, incoming, failure)

    if current.kind in ("aborted", "failed") and incoming.kind == "timeout":
        if incoming_observing:
            return _with_failure(_with_timeout_observation(current, incoming.phase), failure)
        return _timeout_over_interruption(incoming, current, failure)

    if current.kind == "timeout" and incoming.kind in ("aborted", "failed"):
        if current_observing:
            return _with_failure(_with_timeout_observation(incoming, current.phase), failure)
        return _timeout_over_interruption(current, incoming, failure)

    if current.kind in ("aborted", "failed") and incoming.kind in ("aborted", "failed"):
        selected: Terminal
        if current.kind == "aborted" and incoming.kind == "aborted":
            stronger = _rank_gt(_ABORT_SOURCE_RANK, incoming.source, current.source)
            selected = Terminal.aborted_by(incoming.source if stronger else current.source)
        elif _rank_gt(_KIND_RANK, incoming.kind, current.kind, or_equal=True):
            selected = incoming
        else:
            selected = current
        for observation in (current.timeout_observation, incoming.timeout_observation):
            if observation:
                selected = _with_timeout_observation(selected, observation)
        return _with_failure(selected, failure)

    stronger_incoming = _rank_gt(_KIND_RANK, incoming.kind, current.kind, or_equal=True)
    return _with_failure(incoming if stronger_incoming else current, failure)


def normalize_attempt_terminal(legacy: LegacyTerminalFlags) -> Terminal:
    """Build a terminal from the deprecated flat flags a harness result may still carry."""
    terminal = Terminal.ok()
    external = legacy.external_abort
    during_compaction = legacy.timed_out_during_compaction
    during_tools = legacy.timed_out_during_tool_execution
    by_budget = legacy.timed_out_by_run_budget
    idle = legacy.idle_timed_out
    if legacy.aborted or external:
        terminal = merge_attempt_terminal(
            terminal, Terminal.aborted_by("external" if external else "runtime"))
    if legacy.timed_out or idle or by_budget:
        phase = ("compaction" if during_compaction
                 else "tool_execution" if during_tools else "prompt")
        source = ("external" if external else "run_budget" if by_budget
                  else "idle" if idle else "runtime")
        timeout = Terminal.timeout(phase, source, aborted=legacy.aborted or external)
        terminal = merge_attempt_terminal(terminal, timeout)
    elif during_compaction or during_tools:
        phase = "compaction" if during_compaction else "tool_execution"
        terminal = merge_attempt_terminal(terminal, Terminal.timeout(phase, "observation"))
    if legacy.prompt_error is not None:
        error_source = legacy.prompt_error_source
        terminal = set_attempt_terminal_failure(terminal, TerminalFailure(
            legacy.prompt_error, "prompt" if error_source is None else error_source))
    return terminal


def project_attempt_terminal(terminal: Terminal) -> LegacyTerminalFlags:
    """Project a terminal onto the legacy flag fields of events and run metadata."""
    kind = terminal.kind
    source = terminal.source
    failure = _failure_of(terminal)
    external = kind in ("aborted", "timeout") and source == "external"
    timed_out = kind == "timeout" and source != "observation"
    observation = terminal.timeout_observation if kind in ("aborted", "failed") else None
    return LegacyTerminalFlags(
        aborted=(kind == "aborted" and source != "yield_cleanup") or _has_timeout_abort(terminal),
        cleanup_yield_aborted=kind == "aborted" and source == "yield_cleanup",
        external_abort=external,
        failed=failure is not None,
        idle_timed_out=kind == "timeout" and source == "idle",
        interrupted=external or timed_out,
        prompt_error=failure.error if failure is not None else None,
        prompt_error_source=failure.source if failure is not None else None,
        timed_out=timed_out,
        timed_out_by_run_budget=kind == "timeout" and source == "run_budget",
        timed_out_during_compaction=(kind == "timeout" and terminal.phase == "compaction")
        or observation == "compaction",
        timed_out_during_tool_execution=(kind == "timeout" and terminal.phase == "tool_execution")
        or observation == "tool_execution",
    )


@dataclass(frozen=True, slots=True)
class AttemptTerminalHelpers:
    """The SDK's `agentHarnessAttemptTerminal` namespace: one owner for terminal precedence."""

    merge: Callable[[Terminal, Terminal], Terminal]
    normalize: Callable[[LegacyTerminalFlags], Terminal]
    project: Callable[[Terminal], LegacyTerminalFlags]
    set_failure: Callable[[Terminal, TerminalFailure | None], Terminal]


agent_harness_attempt_terminal = AttemptTerminalHelpers(
    merge=merge_attempt_terminal,
    normalize=normalize_attempt_terminal,
    project=project_attempt_terminal,
    set_failure=set_attempt_terminal_failure,
)
