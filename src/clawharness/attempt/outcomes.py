"""The host-owned terminal tool outcome accumulator (`observeToolTerminal`).

One `ToolTerminalObserver` per attempt. A harness that executes tools calls it once per
tool terminal outcome, with facts from the execution boundary (JS-shaped keys:
`toolCallId`, `toolName`, `arguments`, `meta`, `executionStarted`, `replaySafe`,
`outcome`, `failure`, `nativeMutation`, `ownerMutation`, `result`). It returns the
canonical resolution for that call, and keeps the attempt's error state:

- a failure of a call that did not start, or of a non-mutating call, is recorded only
  while no mutation is unresolved;
- mutating failures form an ordered list (the same action appears once, newest last);
- a success clears only the unresolved entries of the same action (edit recovers
  through write on the same file), and latches `lastToolRecovery` until that action
  fails again; unrelated successes leave the error in place.

The state machine (`ToolErrorState`) is pure; the observer adds the host's own tracking
of which calls really started and with which arguments.
"""

from __future__ import annotations

import weakref
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from clawharness.attempt.mutation import (
    FileTarget,
    ToolActionRef,
    ToolMutationState,
    build_apply_patch_file_targets,
    build_tool_mutation_state,
    is_mutating_tool_call,
    is_replay_safe_tool_call,
    is_same_tool_mutation_action,
)

__all__ = [
    "EffectReceiptState",
    "ToolErrorState",
    "ToolTerminalObserver",
    "build_tool_effect_receipt",
    "read_tool_effect_receipt",
    "register_tool_effect_receipt",
]

EffectReceiptState = Literal[
    "not_started", "read_completed", "failed_no_effect", "mutation_committed", "uncertain"
]
_RECEIPT_STATES = frozenset(
    {"not_started", "read_completed", "failed_no_effect", "mutation_committed", "uncertain"}
)
#: summary keys the host owns; a harness's `failure` fields cannot overwrite them
_HOST_OWNED_SUMMARY_KEYS = frozenset(
    {"toolName", "executionStarted", "mutatingAction", "actionFingerprint", "fileTarget",
     "ownerKey"}
)


# --- effect receipts: private provenance bound to the exact result object -------------

_receipts: dict[int, tuple[weakref.ref[Any], EffectReceiptState]] = {}


def register_tool_effect_receipt(target: Any, state: EffectReceiptState) -> Any:
    """Bind an effect receipt to the exact host result object (not its serialised form).

    Only weak-referenceable objects can carry one (tool result classes, exceptions, dict
    subclasses); a plain dict cannot, and is returned without a receipt.
    """
    key = id(target)

    def _forget(_ref: weakref.ref[Any], key: int = key) -> None:
        _receipts.pop(key, None)

    try:
        ref = weakref.ref(target, _forget)
    except TypeError:
        return target
    _receipts[key] = (ref, state)
    return target


def read_tool_effect_receipt(result: Any) -> EffectReceiptState | None:
    """The receipt registered on this exact object, if any."""
    entry = _receipts.get(id(result))
    if entry is None or entry[0]() is not result:
        return None
    return entry[1]


def build_tool_effect_receipt(
    *, execution_started: bool, mutating_action: bool, replay_safe: bool, outcome: str
) -> EffectReceiptState:
    """The strongest effect fact available at the terminal boundary."""
    if not execution_started:
        # hooks and approvals may already have run; only an explicit no-start proof says more
        return "uncertain"
    if replay_safe:
        return "read_completed" if outcome == "success" else "failed_no_effect"
    return "mutation_committed" if mutating_action and outcome == "success" else "uncertain"


# --- the error state machine ----------------------------------------------------------


def _ref_of(summary: Mapping[str, Any]) -> ToolActionRef:
    meta = summary.get("meta")
    fingerprint = summary.get("actionFingerprint")
    return ToolActionRef(
        tool_name=str(summary.get("toolName", "")),
        meta=meta if isinstance(meta, str) else None,
        action_fingerprint=fingerprint if isinstance(fingerprint, str) else None,
        file_target=FileTarget.from_json(summary.get("fileTarget")),
    )


@dataclass(slots=True)
class _Recovery:
    actions: list[ToolActionRef]
    tool_name: str


@dataclass(slots=True)
class ToolErrorState:
    """Attempt-local tool error state; summaries are JS-shaped `ToolErrorSummary` dicts."""

    platform: str | None = None
    _non_mutating_failure: dict[str, Any] | None = None
    _unresolved: list[dict[str, Any]] = field(default_factory=list)
    _recovery: _Recovery | None = None

    def current(self) -> dict[str, Any] | None:
        """The last unresolved mutation, else the non-mutating failure."""
        if self._unresolved:
            return self._unresolved[-1]
        return self._non_mutating_failure

    @property
    def unresolved_mutations(self) -> tuple[dict[str, Any], ...]:
        """Unresolved mutating failures, oldest first."""
        return tuple(self._unresolved)

    @property
    def has_unresolved(self) -> bool:
        """Whether a mutating failure waits for its action to succeed."""
        return bool(self._unresolved)

    def terminal_state(self) -> dict[str, Any]:
        """`{lastToolError?, lastToolRecovery?}`."""
        out: dict[str, Any] = {}
        current = self.current()
        if current is not None:
            out["lastToolError"] = dict(current)
        if self._recovery is not None:
            out["lastToolRecovery"] = {"toolName": self._recovery.tool_name}
        return out

    def _same(self, a: ToolActionRef, b: ToolActionRef) -> bool:
        return is_same_tool_mutation_action(a, b, self.platform)

    def record_failure(self, failure: Mapping[str, Any]) -> dict[str, Any]:
        """Record one failure summary; returns the terminal state."""
        ref = _ref_of(failure)
        if self._recovery is not None:
            for index, action in enumerate(self._recovery.actions):
                if self._same(action, ref):
                    del self._recovery.actions[index]
                    break
            if not self._recovery.actions:
                self._recovery = None
        if failure.get("mutatingAction") is not True:
            if not self._unresolved:
                self._non_mutating_failure = dict(failure)
            return self.terminal_state()
        self._non_mutating_failure = None
        for index, entry in enumerate(self._unresolved):
            if self._same(_ref_of(entry), ref):
                del self._unresolved[index]
                break
        self._unresolved.append(dict(failure))
        return self.terminal_state()

    def record_success_of(self, tool_name: str, meta: str | None,
                          action_fingerprint: str | None,
                          file_targets: Sequence[FileTarget] | None = None) -> dict[str, Any]:
        """`record_success` of the action named by its parts: its `ToolActionRef` (a
        frozen dataclass, ~7k instructions) is made only when a failure waits to be
        matched, which is seldom (the usual success just clears the state)."""
        if not self._unresolved:
            self._non_mutating_failure = None
            return self.terminal_state()
        return self.record_success(ToolActionRef(tool_name, meta, action_fingerprint),
                                   file_targets)

    def record_success(
        self, success: ToolActionRef, file_targets: Sequence[FileTarget] | None = None
    ) -> dict[str, Any]:
        """Record one success (expanded per file target); returns the terminal state."""
        if not self._unresolved:
            self._non_mutating_failure = None
            return self.terminal_state()
        candidates = (
            [ToolActionRef(success.tool_name, success.meta, success.action_fingerprint, target)
             for target in file_targets]
            if file_targets
            else [success]
        )
        recovered: list[ToolActionRef] = []
        remaining: list[dict[str, Any]] = []
        for entry in self._unresolved:
            entry_ref = _ref_of(entry)
            match = next((c for c in candidates if self._same(entry_ref, c)), None)
            if match is None:
                remaining.append(entry)
            elif match not in recovered:
                recovered.append(match)
        self._unresolved = remaining
        if recovered:
            self._recovery = _Recovery(recovered, recovered[-1].tool_name)
        return self.terminal_state()


# --- the observer ---------------------------------------------------------------------


def _as_record(value: Any) -> dict[str, Any] | None:
    # (a dict is told apart in C, before the ABC's check in Python; None, where
    # likely, is ruled out before it)
    return dict(value) if isinstance(value, (dict, Mapping)) else None


def _middleware_failed(result: Any) -> bool:
    details = (result.get("details")
               if isinstance(result, (dict, Mapping)) else None)
    # (a dict is told apart in C, before the ABC's check in Python)
    return (details is not None and isinstance(details, (dict, Mapping))
            and details.get("middlewareError") is True)


class ToolTerminalObserver:
    """One attempt's terminal outcome accumulator; pass it as `observe_tool_terminal`.

    The host's tool wrapper may feed its own execution facts first
    (`record_execution_started`, `record_adjusted_arguments`,
    `record_pre_execution_blocked`); they win over the harness's report.
    """

    def __init__(self, run_id: str, *, platform: str | None = None) -> None:
        self.run_id = run_id
        self._errors = ToolErrorState(platform=platform)
        self._started: dict[str, bool] = {}
        self._adjusted: dict[str, dict[str, Any]] = {}
        self._blocked: set[str] = set()
        self._observed = 0
        self._side_effect_evidence = False

    # host tracking ---------------------------------------------------------------------

    def record_execution_started(self, tool_call_id: str, started: bool = True) -> None:
        """The host saw the implementation begin (or, with False, saw it not begin)."""
        self._started[tool_call_id] = started

    def record_adjusted_arguments(self, tool_call_id: str, arguments: Mapping[str, Any]) -> None:
        """The arguments that reached the tool after preparation and hook rewrites."""
        self._adjusted[tool_call_id] = dict(arguments)

    def record_pre_execution_blocked(self, tool_call_id: str) -> None:
        """A guard stopped this call before the tool implementation began."""
        self._blocked.add(tool_call_id)

    # facts for the final result --------------------------------------------------------

    @property
    def last_tool_error(self) -> dict[str, Any] | None:
        """The `lastToolError` to carry into the attempt result."""
        current = self._errors.current()
        return dict(current) if current is not None else None

    @property
    def last_tool_recovery(self) -> dict[str, Any] | None:
        """`{toolName}` of the last action that cleared an unresolved mutation."""
        recovery = self._errors.terminal_state().get("lastToolRecovery")
        return dict(recovery) if recovery is not None else None

    @property
    def side_effect_evidence(self) -> bool:
        """True once any started call was not proven replay-safe."""
        return self._side_effect_evidence

    @property
    def observed_count(self) -> int:
        """How many terminal outcomes were reported."""
        return self._observed

    @property
    def unresolved_mutations(self) -> tuple[dict[str, Any], ...]:
        """Mutating failures not yet cleared, oldest first."""
        return tuple(dict(entry) for entry in self._errors.unresolved_mutations)

    # the callback ----------------------------------------------------------------------

    def __call__(self, observation: Mapping[str, Any]) -> dict[str, Any]:
        return self.observe(observation)

    def _mutation(self, observation: Mapping[str, Any], args: Any) -> ToolMutationState:
        tool_name = str(observation.get("toolName", ""))
        declared = self._declared(observation, tool_name, args)
        if declared is not None:
            return declared
        meta = observation.get("meta")
        return build_tool_mutation_state(tool_name, args, meta if isinstance(meta, str) else None)

    @staticmethod
    def _declared(observation: Mapping[str, Any], tool_name: str,
                  args: Any) -> ToolMutationState | None:
        """The mutation facts the tool's owner or a native protocol declared; None when
        the classifier decides."""
        owner = observation.get("ownerMutation")
        owner_key = (owner.get("ownerKey")
                     if owner is not None and isinstance(owner, Mapping) else None)
        if isinstance(owner_key, str) and owner_key:
            return build_tool_mutation_state(tool_name, args, owner_key=owner_key)
        native = observation.get("nativeMutation")
        if native is not None and isinstance(native, Mapping):
            # protocol-owned facts for native tools; the classifier is not applied to them
            fingerprint = native.get("actionFingerprint")
            return ToolMutationState(
                mutating_action=native.get("mutatingAction") is True,
                replay_safe=native.get("replaySafe") is True,
                action_fingerprint=fingerprint if isinstance(fingerprint, str) else None,
            )
        return None

    def observe(self, observation: Mapping[str, Any]) -> dict[str, Any]:
        """Record one terminal outcome and return its canonical resolution."""
        self._observed += 1
        tool_name = str(observation.get("toolName", ""))
        call_id = observation.get("toolCallId")
        call_id = call_id if isinstance(call_id, str) and call_id else None
        result = observation.get("result")
        receipt = read_tool_effect_receipt(result)

        tracked_started = self._started.pop(call_id, None) if call_id else None
        reported = observation.get("executionStarted")
        started_fact = tracked_started if tracked_started is not None else (
            reported if isinstance(reported, bool) else True
        )
        prevented = call_id is not None and call_id in self._blocked
        execution_started = started_fact and not prevented and receipt != "not_started"

        tracked_arguments = self._adjusted.get(call_id) if call_id else None
        executed_arguments = (
            tracked_arguments if tracked_arguments is not None
            else _as_record(observation.get("arguments"))
        )
        outcome = observation.get("outcome")
        failed = outcome == "failure" or _middleware_failed(result)
        if failed or self._errors.has_unresolved:
            mutation = self._mutation(observation, executed_arguments)
            mutating, classified_safe = mutation.mutating_action, mutation.replay_safe
            file_targets = build_apply_patch_file_targets(tool_name, executed_arguments)
            if file_targets is None and mutation.file_target is not None:
                file_targets = [mutation.file_target]
            meta = observation.get("meta")
            if failed:
                state = self._record_failure(observation, tool_name, meta, execution_started,
                                             mutation, file_targets, result)
            else:
                state = self._errors.record_success_of(
                    tool_name, meta if isinstance(meta, str) else None,
                    mutation.action_fingerprint, file_targets)
        else:
            # the usual success: no failure waits to be matched against it, so the
            # action's identity (its fingerprint, its file targets) is never looked at
            # (nor made into a frozen `ToolMutationState` where the classifier decides)
            declared = self._declared(observation, tool_name, executed_arguments)
            if declared is None:
                mutating = is_mutating_tool_call(tool_name, executed_arguments)
                classified_safe = is_replay_safe_tool_call(tool_name, executed_arguments)
            else:
                mutating, classified_safe = declared.mutating_action, declared.replay_safe
            state = self._errors.record_success_of(tool_name, None, None)
        replay_flag = observation.get("replaySafe")
        replay_safe = replay_flag if isinstance(replay_flag, bool) else classified_safe

        side_effect = execution_started and not replay_safe
        self._side_effect_evidence = self._side_effect_evidence or side_effect
        resolution: dict[str, Any] = state  # (a new dict from the state machine: no copy)
        resolution["executionStarted"] = execution_started
        if executed_arguments is not None:
            # (`_as_record` copied the observation's own; the host's record is kept)
            resolution["executedArguments"] = (dict(executed_arguments)
                                               if tracked_arguments is not None
                                               else executed_arguments)
        resolution["sideEffectEvidence"] = side_effect
        resolution["effectReceipt"] = {
            "state": receipt
            or build_tool_effect_receipt(
                execution_started=execution_started,
                mutating_action=mutating,
                replay_safe=replay_safe,
                outcome="failure" if failed else "success",
            )
        }
        return resolution

    def _record_failure(
        self,
        observation: Mapping[str, Any],
        tool_name: str,
        meta: Any,
        execution_started: bool,
        mutation: ToolMutationState,
        file_targets: Sequence[FileTarget] | None,
        result: Any,
    ) -> dict[str, Any]:
        # an unstarted call cannot have mutated anything: it counts as non-mutating
        mutating = execution_started and mutation.mutating_action
        summary: dict[str, Any] = {"toolName": tool_name}
        if isinstance(meta, str) and meta:
            summary["meta"] = meta
        failure = observation.get("failure")
        if isinstance(failure, Mapping):
            for key, value in failure.items():
                if isinstance(key, str) and key not in _HOST_OWNED_SUMMARY_KEYS:
                    summary[key] = value
        if _middleware_failed(result):
            summary["middlewareError"] = True
        summary["executionStarted"] = execution_started
        summary["mutatingAction"] = mutating
        owner = observation.get("ownerMutation")
        if isinstance(owner, Mapping) and isinstance(owner.get("ownerKey"), str):
            summary["ownerKey"] = owner["ownerKey"]
        if mutating and mutation.action_fingerprint:
            summary["actionFingerprint"] = mutation.action_fingerprint
        state: dict[str, Any] = self._errors.terminal_state()
        targets: Sequence[FileTarget | None] = (
            list(file_targets) if mutating and file_targets else [None]
        )
        for target in targets:
            entry = dict(summary)
            if target is not None:
                entry["fileTarget"] = target.to_json()
            state = self._errors.record_failure(entry)
        return state
