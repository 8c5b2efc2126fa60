"""A turn's conclusion. Pin the session to what answered, finalize a
settled turn that said nothing, start the agent_end side effects, keep the turn's record
and shape its `TurnResult`."""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import replace

from clawharness.attempt.failure import describe_failure
from clawharness.attempt.finalize import (
    IncompleteTurnError,
    SettledTurnFinalized,
    run_settled_turn_finalization,
    should_finalize,
)
from clawharness.attempt.inspector import TurnRecordKeeper
from clawharness.attempt.outcomes import ToolTerminalObserver
from clawharness.attempt.prepare import PreparedTurn
from clawharness.attempt.run_attempt import AttemptOutcome
from clawharness.attempt.turn_options import TurnContext
from clawharness.delivery.reply_content import ReplyPayload
from clawharness.delivery.silent import is_silent_payload
from clawharness.harness import quick_maker
from clawharness.harness.types import AgentHarness, AttemptParams, AttemptResult
from clawharness.providers.diagnostics import endpoint_url
from clawharness.providers.registry import resolve_api
from clawharness.records.agent_end import AgentEnd, AgentEndContext, AgentEndEvent
from clawharness.records.tool_calls import ToolCallMeta
from clawharness.records.turn_result import ModelFallback, TurnResult
from clawharness.redaction.outbound import redact_secrets, redact_secrets_in
from clawharness.sessions.transcript import TranscriptMirror
from clawharness.store import SessionRecord, SessionStore

__all__ = ["TurnConcluder", "final_text"]

#: makes a `TurnResult` as the class does, in fewer instructions (`clawharness._frozen`):
#: one a turn, of 23 fields
_make_result = quick_maker(TurnResult)


def _redacted(text: str | None) -> str | None:
    return None if text is None else redact_secrets(text)


def _redacted_call(meta: ToolCallMeta) -> ToolCallMeta:
    if not (meta.is_error and meta.error):
        return meta
    return replace(meta, error=redact_secrets(meta.error))


def final_text(result: AttemptResult) -> str:
    """The attempt's reply: its last assistant text."""
    if result.assistant_texts:
        return result.assistant_texts[-1]
    last = result.last_assistant
    if isinstance(last, dict):
        blocks = last.get("content") or []
        return "".join(b.get("text", "") for b in blocks if isinstance(b, dict) and b.get("type") == "text")
    return ""


class TurnConcluder:
    """Concludes the turns of one host."""

    def __init__(self, context: TurnContext, store: SessionStore,
                 records: TurnRecordKeeper) -> None:
        self._context = context
        self._store = store
        self._records = records

    async def conclude(self, turn: PreparedTurn, attempt: AttemptOutcome,
                       record: SessionRecord, fallbacks: Sequence[ModelFallback]) -> TurnResult:
        """Pin, finalize when needed, start side effects, and shape the turn's result
        (`attempt` is the one the turn ends with; its spend is settled by the caller)."""
        decision, result, ref = attempt.decision, attempt.result, attempt.ref
        session_key, agent_id, fence = turn.session_key, turn.agent_id, turn.fence
        recorder = turn.recorder
        # a fallback model answers this turn only: the session keeps its own model and pin
        if not fallbacks and (record.agent_harness_id != decision.selected_harness_id
                              or record.model_ref != str(ref)):
            await self._store.update_session(
                session_key, fence=fence, agent_harness_id=decision.selected_harness_id,
                model_ref=str(ref))
        text = final_text(result)
        warning: str | None = None
        # (the text first: `should_finalize` reads the whole result, and is pure)
        if decision.harness is not None and not text.strip() and should_finalize(result):
            text, warning = await self._finalize(decision.harness, attempt.params, result,
                                                 attempt.observer, attempt.mirror)
            recorder.finalized("incomplete-warning" if warning else "finalized")
        silent = bool(text) and is_silent_payload(ReplyPayload(text=text))
        # what every front shows of a failed call: a tool echoing a key is masked
        tool_calls = tuple(_redacted_call(m) for m in result.tool_metas)
        run_id = attempt.params.run_id
        hooks = self._context.hooks
        if hooks.listens_after_turn:  # the event is built only for someone to hear it
            hooks.after_turn(AgentEnd(
                AgentEndEvent(run_id=run_id, session_key=session_key,
                              terminal=result.terminal.kind, text=text,
                              tool_metas=tool_calls, usage=result.usage),
                AgentEndContext(run_id=run_id, agent_id=agent_id, session_key=session_key,
                                session_id=record.session_id,
                                harness_id=decision.selected_harness_id,
                                workspace_dir=turn.workspace)))
        model = attempt.params.model
        failure = None if result.terminal.kind == "ok" else describe_failure(
            result.terminal, model=model, url=endpoint_url(model, resolve_api(model)),
            runtime=decision.selected_harness_id, builtin=decision.builtin,
            timeout_seconds=turn.timeout)
        concluded = _make_result(
            session_key=session_key, session_id=record.session_id, run_id=run_id,
            runtime=decision.selected_harness_id, selected_reason=decision.selected_reason,
            terminal=result.terminal.kind, text="" if silent else text, silent=silent,
            # priced here, so the inspector's record carries the cost too
            tool_calls=tool_calls, usage=turn.spend.priced(result.usage, attempt.params,
                                                           builtin=decision.builtin),
            # what every front shows of a failure: a provider echoing its key is masked
            error=_redacted(failure.message if failure else result.terminal.error),
            duration_ms=(time.perf_counter() - turn.started) * 1000,
            warnings=tuple(result.warnings),
            error_details=redact_secrets_in(failure.details) if failure else None,
            pinned_harness_id=turn.pinned,
            model=str(ref), fallbacks=tuple(fallbacks), incomplete_turn_warning=warning or None,
            resumed_run=attempt.resumed,
            client_tool_calls=tuple(dict(c) for c in result.client_tool_calls or ()),
        )
        self._records.keep(recorder.build(concluded, agent_id=agent_id))
        return concluded

    @staticmethod
    async def _finalize(harness: AgentHarness, params: AttemptParams, result: AttemptResult,
                        observer: ToolTerminalObserver,
                        mirror: TranscriptMirror) -> tuple[str, str | None]:
        """Settled-turn finalization: once, outside the attempt loop; else the warning."""
        try:
            outcome = await run_settled_turn_finalization(harness, params, result,
                                                          observer=observer, timeout=120)
        except IncompleteTurnError as exc:
            return exc.warning.text, exc.warning.text
        if isinstance(outcome, SettledTurnFinalized):
            if not outcome.result.assistant_transcript_owned:
                await mirror([outcome.result.assistant])
                await mirror.flush()
            return outcome.text, None
        return outcome.text, outcome.text
