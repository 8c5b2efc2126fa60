"""Settled-turn finalization: one last visible answer after a tool turn ended silently.

When a harness completed every tool call but its native turn produced no visible
assistant text, the host may ask the selected harness, once, to finalize the settled
turn (`finalize_settled_turn(attempt=..., settled_attempt=...)`). This is a terminal
sub-operation outside the attempt/retry loop: `operation="settled-tool-finalization"`,
no tools, no hooks, no partial-reply streaming, and host capabilities that are already
settled (every call fails closed).

The settled attempt's `settled_turn_finalization_context` is checked before any I/O:
`openclaw-transcript` needs `messages`, `harness` needs `data`, `unavailable` is refused
(the host falls back to its warning without repeating tools). A harness without the
capability keeps the incomplete-turn error; any failure yields a frozen,
side-effect-aware `IncompleteTurnWarning` instead of entering rotation or fallback.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from clawharness.attempt.finalize_result import (
    EmptySettledTurnFinalizationError,
    SettledTurnFinalizationRejectedError,
    SettledTurnFinalizationResult,
    extract_assistant_visible_text,
    parse_settled_turn_finalization_result,
    resolve_settled_turn_finalization_text,
)
from clawharness.attempt.mutation import is_likely_mutating_tool_name
from clawharness.delivery.silent import is_silent_reply_text
from clawharness.errors import HarnessError
from clawharness.harness.capabilities import HostCapabilities
from clawharness.harness.types import AttemptParams, AttemptResult

__all__ = [
    "SETTLED_TURN_FINALIZATION_PROMPT",
    "ContextCheck",
    "FinalizationOutcome",
    "IncompleteTurnError",
    "IncompleteTurnWarning",
    "SettledTurnFinalizationRepeatedError",
    "SettledTurnFinalized",
    "build_finalization_params",
    "check_finalization_context",
    "incomplete_turn_warning",
    "run_settled_turn_finalization",
    "should_finalize",
]

log = logging.getLogger("clawharness.finalize")

SETTLED_TURN_FINALIZATION_PROMPT = (
    "Your previous turn finished its tool calls without giving the user an answer. "
    "Using the transcript so far, write the final answer for the user now. Do not repeat "
    "tool calls that already completed and do not start over. No tools are available in "
    "this step: reply with plain text only."
)
_WARNING_WITH_SIDE_EFFECTS = (
    "⚠️ Agent couldn't generate a response. Note: some tool actions may have already been "
    "executed — please verify before retrying."
)
_WARNING_PLAIN = "⚠️ Agent couldn't generate a response. Please try again."
#: finalization is once per run; remember this many recent run ids
_MAX_REMEMBERED_RUNS = 4096

WarningReason = Literal[
    "unsupported", "context-unavailable", "context-invalid", "finalizer-failed",
    "result-rejected", "empty",
]


class SideEffectFacts(Protocol):
    """What the finalizer needs from the attempt's `ToolTerminalObserver`."""

    @property
    def side_effect_evidence(self) -> bool: ...


@dataclass(frozen=True, slots=True)
class IncompleteTurnWarning:
    """The user-visible incomplete-turn warning, aware of whether tools had side effects."""

    text: str
    reason: WarningReason
    side_effects: bool
    detail: str | None = None


@dataclass(frozen=True, slots=True)
class SettledTurnFinalized:
    """A validated finalization: the answer text and the narrow result it came from."""

    text: str
    result: SettledTurnFinalizationResult


FinalizationOutcome = SettledTurnFinalized | IncompleteTurnWarning


class IncompleteTurnError(HarnessError):
    """The turn stays incomplete: the harness cannot safely finalize a settled tool turn."""

    code = "incomplete_turn"

    def __init__(self, message: str, warning: IncompleteTurnWarning) -> None:
        super().__init__(message)
        self.warning = warning


class SettledTurnFinalizationRepeatedError(HarnessError):
    """Finalization was requested twice for one run; it is a once-only operation."""

    code = "settled_turn_finalization_repeated"


@dataclass(frozen=True, slots=True)
class ContextCheck:
    """Whether the settled attempt's finalization context may be used, and why not."""

    ok: bool
    source: str | None
    reason: WarningReason | None = None
    detail: str | None = None


# --- pure decisions -------------------------------------------------------------------


def _visible_text(result: AttemptResult) -> str:
    texts = [text.strip() for text in result.assistant_texts if isinstance(text, str)]
    joined = "\n".join(text for text in texts if text)
    if joined:
        return joined
    if isinstance(result.last_assistant, Mapping):
        return extract_assistant_visible_text(result.last_assistant).strip()
    return ""


def should_finalize(result: AttemptResult) -> bool:
    """True when every tool call settled and the turn left no visible assistant text.

    Not for failed or aborted turns, turns that already delivered through a messaging
    tool, handed calls to the client, still run async tool work, reported a tool error,
    or chose silence deliberately (NO_REPLY).
    """
    if result.terminal.kind != "ok" or not result.tool_metas:
        return False
    if result.client_tool_calls or result.did_send_via_messaging_tool:
        return False
    if result.last_tool_error is not None or result.extra.get("yieldDetected"):
        return False
    if any(meta.async_started for meta in result.tool_metas):
        return False
    lifecycle = result.extra.get("itemLifecycle")
    if isinstance(lifecycle, Mapping) and (lifecycle.get("activeCount") or 0) > 0:
        return False
    if any(isinstance(t, str) and is_silent_reply_text(t.strip()) for t in result.assistant_texts):
        return False
    return not _visible_text(result)


def check_finalization_context(context: Any) -> ContextCheck:
    """Validate `settled_turn_finalization_context` without reading it further.

    None means the harness resumes its own restricted native session (no projection
    needed). `harness` data stays opaque: only the owning finalizer interprets it.
    """
    if context is None:
        return ContextCheck(True, None)
    if not isinstance(context, Mapping):
        return ContextCheck(False, None, "context-invalid", "context is not an object")
    source = context.get("source")
    if source == "unavailable":
        return ContextCheck(False, "unavailable", "context-unavailable",
                            "safe replay evidence could not be captured for this turn")
    if source == "openclaw-transcript":
        messages = context.get("messages")
        if not isinstance(messages, Sequence) or isinstance(messages, str | bytes) or not messages:
            return ContextCheck(False, source, "context-invalid",
                                "openclaw-transcript context has no messages")
        return ContextCheck(True, source)
    if source == "harness":
        if context.get("data") is None:
            return ContextCheck(False, source, "context-invalid", "harness context has no data")
        return ContextCheck(True, source)
    return ContextCheck(False, str(source) if source is not None else None, "context-invalid",
                        f"unsupported finalization context source: {source!r}")


def _result_side_effects(result: AttemptResult) -> bool:
    replay = result.extra.get("replayMetadata")
    if isinstance(replay, Mapping) and replay.get("hadPotentialSideEffects") is True:
        return True
    if result.did_send_via_messaging_tool or result.messaging_tool_sent_texts:
        return True
    return any(is_likely_mutating_tool_name(meta.tool_name) for meta in result.tool_metas)


def incomplete_turn_warning(
    result: AttemptResult,
    *,
    reason: WarningReason,
    observer: SideEffectFacts | None = None,
    detail: str | None = None,
) -> IncompleteTurnWarning:
    """The warning for a turn that ends without an answer.

    Side effects come from the host's own observer when there is one (what really
    started and was not replay-safe), else from the result's replay and tool facts.
    """
    side_effects = (
        observer.side_effect_evidence if observer is not None else _result_side_effects(result)
    )
    text = _WARNING_WITH_SIDE_EFFECTS if side_effects else _WARNING_PLAIN
    return IncompleteTurnWarning(text, reason, side_effects, detail)


class _NoTools:
    """The tool policy of a finalization call: everything is unavailable."""

    def check(self, tool_name: str) -> str | None:
        return "tools are unavailable during settled-turn finalization"

    def needs_approval(self, tool_name: str, arguments: Mapping[str, Any]) -> str | None:
        return None


def build_finalization_params(attempt_params: AttemptParams, *, prompt: str) -> AttemptParams:
    """The attempt params a finalizer sees: same identity, no capability surface."""
    dead = HostCapabilities(
        run_id=attempt_params.run_id, session_key=attempt_params.session_key,
        workspace_dir=attempt_params.workspace_dir, policy=_NoTools(), approvals=None,
    )
    dead.settle()  # lent capabilities must fail closed for the whole sub-operation
    return dataclasses.replace(
        attempt_params,
        operation="settled-tool-finalization",
        prompt=prompt,
        host_capabilities=dead,
        tools=(),
        tools_allow=(),
        images=(),
        observe_tool_terminal=None,
        on_partial_reply=None,
        on_agent_event=None,
        continuation=None,
        mirror=None,
        capture_runtime_artifact=False,
        skill_workshop_proposal_only=False,
    )


# --- the sub-operation ----------------------------------------------------------------

_finalized_runs: OrderedDict[str, None] = OrderedDict()


def _claim_run(run_id: str) -> None:
    if run_id in _finalized_runs:
        raise SettledTurnFinalizationRepeatedError(
            f"settled-turn finalization already ran for run {run_id}; it runs at most once"
        )
    _finalized_runs[run_id] = None
    while len(_finalized_runs) > _MAX_REMEMBERED_RUNS:
        _finalized_runs.popitem(last=False)


async def run_settled_turn_finalization(
    harness: Any,
    attempt_params: AttemptParams,
    settled_result: AttemptResult,
    *,
    prompt: str = SETTLED_TURN_FINALIZATION_PROMPT,
    observer: SideEffectFacts | None = None,
    timeout: float | None = None,
) -> FinalizationOutcome:
    """Ask the selected harness, once, for the final answer of a settled tool turn.

    Raises `IncompleteTurnError` when the harness lacks `finalize_settled_turn`, and
    `SettledTurnFinalizationRepeatedError` on a second call for the same run. Every
    other failure returns an `IncompleteTurnWarning`; none is retried.
    """
    _claim_run(attempt_params.run_id)
    harness_id = getattr(harness, "id", "?")
    finalize = getattr(harness, "finalize_settled_turn", None)
    if not callable(finalize):
        warning = incomplete_turn_warning(settled_result, reason="unsupported", observer=observer)
        raise IncompleteTurnError(
            f"Agent harness {harness_id} cannot safely finalize a settled tool turn.", warning
        )

    def fail(reason: WarningReason, detail: str) -> IncompleteTurnWarning:
        log.warning("settled-tool-finalization for run %s (%s) failed: %s: %s",
                    attempt_params.run_id, harness_id, reason, detail)
        return incomplete_turn_warning(settled_result, reason=reason, observer=observer,
                                       detail=detail)

    check = check_finalization_context(settled_result.settled_turn_finalization_context)
    if not check.ok:
        return fail(check.reason or "context-invalid", check.detail or "invalid context")
    params = build_finalization_params(attempt_params, prompt=prompt)
    log.info("settled-tool-finalization for run %s via %s (context: %s)",
             attempt_params.run_id, harness_id, check.source or "native")
    try:
        async with asyncio.timeout(timeout):
            raw = await finalize(attempt=params, settled_attempt=settled_result)
    except TimeoutError:
        return fail("finalizer-failed", f"timed out after {timeout}s")
    except Exception as exc:  # a finalizer failure ends the run; it is never retried
        return fail("finalizer-failed", f"{type(exc).__name__}: {exc}")
    if not isinstance(raw, Mapping):
        return fail("result-rejected", "finalizer did not return a result object")
    try:
        validated = parse_settled_turn_finalization_result(raw)
        text = resolve_settled_turn_finalization_text(validated)
    except EmptySettledTurnFinalizationError as exc:
        return fail("empty", str(exc))
    except SettledTurnFinalizationRejectedError as exc:
        return fail("result-rejected", str(exc))
    except Exception as exc:  # a malformed shape is a contract break, not a host crash
        return fail("result-rejected", f"{type(exc).__name__}: {exc}")
    return SettledTurnFinalized(text=text, result=validated)
