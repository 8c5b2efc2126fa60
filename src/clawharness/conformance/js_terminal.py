"""The `agentHarnessAttemptTerminal` namespace at the conformance boundary.

Decodes the vectors' terminal objects (`{kind, phase?, source?, aborted?, failure?,
timeoutObservation?, error?, settlementWarning?}`) and legacy flag objects into
`clawharness.attempt.terminal` values, and encodes results back in the original's key
order. The original returns an input object itself when nothing changes, so a terminal
or failure the core returns unchanged encodes as the very object it was decoded from;
one the core built keeps the key order of the input it was spread from (the one input
of the same kind; a failed terminal made from a failure spreads that failure), with
that input's keys the kind never has carried over as they were, and new keys following
in the order the original's constructors write them (`_CANONICAL`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from clawharness.attempt.terminal import (
    LegacyTerminalFlags,
    Terminal,
    TerminalFailure,
    merge_attempt_terminal,
    normalize_attempt_terminal,
    project_attempt_terminal,
    set_attempt_terminal_failure,
)
from clawharness.conformance.jsrules import get, is_nullish, is_record, js_truthy
from clawharness.conformance.jsvalue import UNDEFINED

__all__ = ["TERMINAL_NAMESPACE", "TerminalCodec", "decode_legacy_flags", "decode_terminal"]

_CANONICAL = {
    "ok": ("kind", "settlementWarning"),
    "timeout": ("kind", "phase", "source", "aborted", "failure"),
    "aborted": ("kind", "source", "timeoutObservation", "failure"),
    "failed": ("kind", "error", "source", "timeoutObservation"),
}
_KINDS = ("ok", "aborted", "timeout", "failed")


def _optional_text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


class TerminalCodec:
    """One call's decoding: remembers the key order of every object it decoded."""

    def __init__(self, *, failure_order: tuple[str, str] = ("error", "source")) -> None:
        #: id -> (the decoded object, the JavaScript object it came from); the object is
        #: kept so ids stay unique for the codec's lifetime
        self._decoded: dict[int, tuple[object, Any]] = {}
        #: the order of a failure the core built (merge lifts `{source, error}` from a
        #: failed terminal; normalize builds `{error, source}` from the prompt error)
        self._failure_order = failure_order
        #: the failure argument a new failed terminal is spread from (`setFailure`)
        self.spread_failure: TerminalFailure | None = None

    def _remember(self, value: object, raw: Any) -> None:
        self._decoded[id(value)] = (value, raw)

    def _raw_of(self, value: object) -> Any:
        entry = self._decoded.get(id(value))
        return entry[1] if entry is not None and entry[0] is value else None

    def failure(self, value: Any) -> TerminalFailure | None:
        if not js_truthy(value):
            return None
        failure = TerminalFailure(error=_error(get(value, "error")),
                                  source=_optional_text(get(value, "source")))
        if is_record(value):
            self._remember(failure, value)
        return failure

    def terminal(self, value: Any) -> Terminal:
        kind = get(value, "kind")
        if kind not in _KINDS:
            raise TypeError(f"not an attempt terminal: kind {kind!r}")
        terminal = Terminal(
            kind=kind,
            source=_optional_text(get(value, "source")),
            phase=_optional_text(get(value, "phase")),
            aborted=get(value, "aborted") is True,
            error=_error(get(value, "error")),
            failure=self.failure(get(value, "failure")),
            timeout_observation=_optional_text(get(value, "timeoutObservation")) or None,
            settlement_warning=_error(get(value, "settlementWarning")),
        )
        self._remember(terminal, value)
        return terminal

    def encode_failure(self, failure: TerminalFailure) -> Any:
        raw = self._raw_of(failure)
        if raw is not None:
            return raw
        fields = {"error": failure.error, "source": failure.source}
        return {key: _undefined_if_none(fields[key]) for key in self._failure_order}

    def encode(self, terminal: Terminal) -> Any:
        raw = self._raw_of(terminal)
        if raw is not None:
            return raw
        present = _present_fields(terminal)
        base = self._spread_base(terminal)
        if terminal.kind == "failed":
            # a failed terminal is `{kind, ...failure}`: error and source both, always
            present["error"] = _undefined_if_none(terminal.error)
            present["source"] = _undefined_if_none(terminal.source)
        if terminal.failure is not None:
            present["failure"] = self.encode_failure(terminal.failure)
        # A spread keeps the base's keys this kind never has (the core does not hold them).
        raw_base = base[1] if base else {}
        carried = {k: raw_base[k] for k in raw_base if k not in _CANONICAL[terminal.kind]}
        keys = [k for k in (base[0] if base else []) if k in present or k in carried]
        keys += [k for k in _CANONICAL[terminal.kind] if k in present and k not in keys]
        keys += [k for k in present if k not in keys]
        return {key: present[key] if key in present else carried[key] for key in keys}

    def _spread_base(self, terminal: Terminal) -> tuple[list[str], dict[str, Any]] | None:
        """The key order, and the object, the original spread this terminal from."""
        spread = self._raw_of(self.spread_failure) if self.spread_failure is not None else None
        if terminal.kind == "failed" and spread is not None:
            return ["kind", *spread], {}  # `{kind: "failed", ...failure}`
        terminals = [raw for value, raw in self._decoded.values()
                     if isinstance(value, Terminal) and value.kind == terminal.kind]
        return (list(terminals[0]), terminals[0]) if len(terminals) == 1 else None


def _error(value: Any) -> object:
    return None if is_nullish(value) else value


def _undefined_if_none(value: object) -> object:
    return UNDEFINED if value is None else value


def _present_fields(terminal: Terminal) -> dict[str, Any]:
    present: dict[str, Any] = {"kind": terminal.kind}
    if terminal.kind in ("aborted", "timeout") and terminal.source is not None:
        present["source"] = terminal.source
    if terminal.kind == "timeout":
        present["phase"] = _undefined_if_none(terminal.phase)
        if terminal.aborted:
            present["aborted"] = True
    if terminal.kind in ("aborted", "failed") and terminal.timeout_observation:
        present["timeoutObservation"] = terminal.timeout_observation
    if terminal.kind == "ok" and terminal.settlement_warning is not None:
        present["settlementWarning"] = terminal.settlement_warning
    return present


def decode_terminal(value: Any) -> Terminal:
    """A terminal from a JavaScript terminal object (key order not kept)."""
    return TerminalCodec().terminal(value)


def decode_legacy_flags(value: Any) -> LegacyTerminalFlags:
    """The legacy flags read with JavaScript truthiness (`promptError` null = none)."""

    def flag(name: str) -> bool:
        return js_truthy(get(value, name))

    prompt_error = get(value, "promptError")
    source = get(value, "promptErrorSource")
    return LegacyTerminalFlags(
        aborted=flag("aborted"),
        external_abort=flag("externalAbort"),
        timed_out=flag("timedOut"),
        timed_out_during_compaction=flag("timedOutDuringCompaction"),
        timed_out_during_tool_execution=flag("timedOutDuringToolExecution"),
        timed_out_by_run_budget=flag("timedOutByRunBudget"),
        idle_timed_out=flag("idleTimedOut"),
        prompt_error=None if is_nullish(prompt_error) else prompt_error,
        prompt_error_source=None if is_nullish(source) else source,
    )


def encode_legacy_flags(flags: LegacyTerminalFlags) -> dict[str, Any]:
    """`project`'s result: every flag, in the original's (alphabetical) order."""
    return {
        "aborted": flags.aborted,
        "cleanupYieldAborted": flags.cleanup_yield_aborted,
        "externalAbort": flags.external_abort,
        "failed": flags.failed,
        "idleTimedOut": flags.idle_timed_out,
        "interrupted": flags.interrupted,
        "promptError": flags.prompt_error,
        "promptErrorSource": flags.prompt_error_source,
        "timedOut": flags.timed_out,
        "timedOutByRunBudget": flags.timed_out_by_run_budget,
        "timedOutDuringCompaction": flags.timed_out_during_compaction,
        "timedOutDuringToolExecution": flags.timed_out_during_tool_execution,
    }


def _merge(current: Any = UNDEFINED, incoming: Any = UNDEFINED) -> Any:
    codec = TerminalCodec(failure_order=("source", "error"))
    return codec.encode(merge_attempt_terminal(codec.terminal(current), codec.terminal(incoming)))


def _normalize(legacy: Any = UNDEFINED) -> Any:
    return TerminalCodec().encode(normalize_attempt_terminal(decode_legacy_flags(legacy)))


def _project(terminal: Any = UNDEFINED) -> Any:
    decoded = TerminalCodec().terminal(terminal)
    flags = encode_legacy_flags(project_attempt_terminal(decoded))
    detail = terminal if decoded.kind == "failed" else get(terminal, "failure")
    if flags["failed"] and flags["promptError"] is None and get(detail, "error") is UNDEFINED:
        flags["promptError"] = UNDEFINED  # a failure that names no error reports `undefined`
    return flags


def _set_failure(terminal: Any = UNDEFINED, failure: Any = UNDEFINED) -> Any:
    codec = TerminalCodec()
    decoded = codec.terminal(terminal)
    codec.spread_failure = codec.failure(failure)
    return codec.encode(set_attempt_terminal_failure(decoded, codec.spread_failure))


class _TerminalNamespace:
    """`agentHarnessAttemptTerminal`: the four helpers, JavaScript values in and out."""

    merge: Callable[..., Any] = staticmethod(_merge)
    normalize: Callable[..., Any] = staticmethod(_normalize)
    project: Callable[..., Any] = staticmethod(_project)
    set_failure: Callable[..., Any] = staticmethod(_set_failure)


TERMINAL_NAMESPACE = _TerminalNamespace()
