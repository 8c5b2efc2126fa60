"""One turn, end to end, as named steps. `TurnRunner.run` opens the message's span and
hands it to the session's queue (`sessions.queue.SessionQueues.submit`: run it now, steer
it into the running turn, or queue it behind); a turn that runs goes through
`TurnRunner._run_turn` (its spend) and `TurnRunner._run` (under the writer lease):

1. **prepare** (`attempt.prepare.TurnPreparer.prepare` -> `PreparedTurn`): under the
   session's writer lease, read the session, resolve the model chain, pin, workspace and
   deadline;
2. for each candidate of the chain, **select** its harness (`TurnRunner._candidate` ->
   `Candidate`) and **run** one attempt (`attempt.run_attempt.AttemptRunner.run` ->
   `AttemptOutcome`): build its parameters, **reserve** the turn's budgets
   (`attempt.budget_step.TurnSpend.reserve`, which needs the attempt's prompt and model),
   dispatch it (`harness.dispatch.run_selected_attempt`) and store what it said;
3. **classify / fall back** (`harness.fallback.decide_fallback` -> `FallbackDecision`):
   end the turn with this attempt, try the next candidate, or stop;
4. **conclude** (`attempt.conclude.TurnConcluder.conclude` -> `TurnResult`);
5. **settle** the spend (`TurnSpend.settle`; `TurnSpend.release` when the turn raised).

This is the machinery around the pure decisions (selection, gates, policy, fallback); no
step reaches back up the list, and a turn claimed by a plugin harness is never replayed
through another runtime.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import replace
from typing import Any, NamedTuple

from clawharness._ids import new_id
from clawharness.attempt.budget_step import SpendLedger, TurnSpend
from clawharness.attempt.conclude import TurnConcluder
from clawharness.attempt.inspector import TurnRecordKeeper
from clawharness.attempt.prepare import PreparedTurn, TurnPreparer, check_workspace
from clawharness.attempt.run_attempt import AttemptOutcome, AttemptRunner, Candidate
from clawharness.attempt.steering import CrossProcessSteering, SteerOffering, turn_purpose
from clawharness.attempt.turn_options import TurnContext, TurnOptions, steered_options
from clawharness.config import QueueMode
from clawharness.errors import ClientToolError, ClientToolsUnsupportedError
from clawharness.harness.fallback import decide_fallback
from clawharness.models import RouteCache
from clawharness.names.model_refs import ModelRef
from clawharness.observability.spans import content_attribute, end_turn, turn_span
from clawharness.records.turn_result import ModelFallback, QueueDelivery, TurnResult
from clawharness.sessions.agents import require_known_agent
from clawharness.sessions.keys import parse_session_key
from clawharness.sessions.queue import (
    SessionQueues,
    Steering,
    parse_queue_mode,
    resolve_queue_mode,
)
from clawharness.sessions.steering_inbox import Offer
from clawharness.sessions.transcript import SessionCreation
from clawharness.store import SessionRecord, Store

__all__ = ["TurnContext", "TurnOptions", "TurnRunner"]


class _Answered(NamedTuple):
    """A steered message's reply from the turn of another process that took it."""

    result: TurnResult


class TurnRunner:
    """Runs turns for one host. Holds no per-turn state between turns."""

    def __init__(self, context: TurnContext, store: Store) -> None:
        self._context = context
        self._store = store
        self._background: set[asyncio.Task[Any]] = set()
        self._records = TurnRecordKeeper(store)
        self._spend = SpendLedger(context.config, store)
        self._preparer = TurnPreparer(context, store)
        self._attempts = AttemptRunner(context, store)
        self._concluder = TurnConcluder(context, store, self._records)
        self._queues: SessionQueues[TurnResult] = SessionQueues()
        self._across = CrossProcessSteering(store, context.writers)
        #: the candidates' routes, per model ref (`RouteCache`: a new config starts afresh)
        self._routes = RouteCache()

    def queued(self, session_key: str) -> int:
        """Messages for the session waiting in this process behind its running turn."""
        return self._queues.waiting(session_key)

    async def drain(self) -> None:
        if self._background:
            await asyncio.gather(*self._background, return_exceptions=True)
        await self._records.drain()
        await self._spend.drain()

    async def run(self, session_key: str, message: str, opts: TurnOptions) -> TurnResult:
        """Run the turn of `message`, or hand it to the session's running turn by its
        queue mode (`clawharness.sessions.queue`)."""
        agent_id = parse_session_key(session_key).agent_id
        mode = resolve_queue_mode(self._context.config, agent_id,
                                  parse_queue_mode(opts.queue_mode))

        run_id = opts.run_id or new_id()
        turn = _QueuedTurn(self, session_key, message, opts, mode, run_id)
        wait = (self._context.writers.timings.wait if opts.busy_timeout is None
                else opts.busy_timeout)
        started = time.perf_counter()
        # the message's span covers its wait in the queue too (a `session_lease_wait`
        # under it), and ends with the reply of whichever turn carried the message
        with turn_span(agent_id, session_key, run_id) as span:
            content_attribute(span, "gen_ai.input.messages", [
                {"role": "user", "parts": [{"type": "text", "content": message}]}])
            try:
                queued = await self._queues.submit(session_key, message, mode, turn,
                                                   abort=opts.abort, wait=wait)
            except Exception as exc:
                end_turn(span, runtime="none", selected_reason="none", terminal="error",
                         session_id="", usage=None, duration=time.perf_counter() - started,
                         error=str(exc), error_type=getattr(exc, "code", type(exc).__name__))
                raise
            result = queued.result
            end_turn(span, runtime=result.runtime, selected_reason=result.selected_reason,
                     terminal=result.terminal, session_id=result.session_id,
                     usage=result.usage, duration=result.duration_ms / 1000,
                     error=result.error, error_type=result.error_type, model=result.model)
            if result.text:
                content_attribute(span, "gen_ai.output.messages", [
                    {"role": "assistant", "parts": [{"type": "text", "content": result.text}]}])
        if queued.mode is None:
            return result
        return replace(result, queue=QueueDelivery(queued.mode, queued.carried))

    async def _run_turn(self, session_key: str, message: str, opts: TurnOptions,
                        offering: SteerOffering | None = None) -> TurnResult:
        started = time.perf_counter()
        key = parse_session_key(session_key)
        require_known_agent(self._context.config, key.agent_id, session_key=session_key)
        if opts.workspace is not None:
            check_workspace(opts.workspace)
        run_id = opts.run_id or new_id()
        # the turn's budgets: reserved before its first dispatch, settled here
        spend = self._spend.turn(run_id, key.agent_id, session_key, caller=opts.caller,
                                 approvals=opts.approvals, ancestors=opts.budget_sessions)
        try:
            result = await self._run(key.agent_id, session_key, message, opts,
                                     run_id, started, spend, offering)
        except BaseException:
            await spend.release()
            raise
        if isinstance(result, _Answered):  # steered into another process's turn: ran nowhere
            await spend.release()
            return result.result
        return await spend.settle(result)

    async def _run(self, agent_id: str, session_key: str, message: str, opts: TurnOptions,
                   run_id: str, started: float, spend: TurnSpend,
                   offering: SteerOffering | None) -> TurnResult | _Answered:
        try:
            async with self._context.writers.hold(
                    session_key, timeout=opts.busy_timeout, purpose=turn_purpose(run_id),
                    on_busy=None if offering is None else offering.on_busy) as slot:
                if offering is not None and offering.offer is not None:
                    # offered to the turn that held the session: its answer if it took it
                    answered = await self._across.answer(offering, run_id)
                    if answered is not None:
                        return _Answered(answered)
                turn = await self._preparer.prepare(
                    run_id=run_id, session_key=session_key, agent_id=agent_id,
                    message=message, opts=opts, started=started, fence=slot.fence,
                    spend=spend)
                attempt, record, fallbacks = await self._run_chain(turn)
                return await self._concluder.conclude(turn, attempt, record, fallbacks)
        except BaseException:
            if offering is not None and offering.offer is not None:
                await self._across.withdraw(offering)  # nobody runs a message whose caller left
            raise

    def _candidate(self, turn: PreparedTurn, index: int, ref: ModelRef) -> Candidate:
        """The candidate's route and the harness selected for it."""
        harnesses = self._context.harnesses
        route = self._routes.resolve(self._context.config, ref, env=self._context.env,
                                     extra_providers=harnesses.providers)
        decision = harnesses.select(agent_id=turn.agent_id, route=route, pinned=turn.pinned,
                                  session_key=turn.session_key, override=turn.override)
        return Candidate(index, ref, route, decision)

    async def _run_chain(
            self, turn: PreparedTurn) -> tuple[AttemptOutcome, SessionRecord, list[ModelFallback]]:
        """Run the chain's candidates until `decide_fallback` ends it: the attempt the turn
        ends with, the session (created by the first attempt when it had none), and the
        models that did not answer."""
        opts, record, recorder = turn.opts, turn.record, turn.recorder
        skipped_harnesses: set[str] = set()
        fallbacks: list[ModelFallback] = []
        attempt: AttemptOutcome | None = None
        created = False
        #: the new session row's write, in flight while the first attempt starts; the
        #: transcript waits for it before its first append (and so does any tool that
        #: may change state), so a lost creation race writes nothing
        creating: SessionCreation | None = None
        results_stored = False
        last = len(turn.candidates) - 1
        for index, ref in enumerate(turn.candidates):
            candidate = self._candidate(turn, index, ref)
            decision = candidate.decision
            if decision.selected_harness_id in skipped_harnesses:
                fallbacks.append(ModelFallback(str(ref), skipped="harness-scoped preflight"))
                continue
            if turn.caller_turn and not decision.builtin:
                if attempt is None and not fallbacks:
                    raise ClientToolsUnsupportedError(
                        f"the caller's tools need the built-in runtime, but agent "
                        f"{turn.agent_id!r} runs {decision.selected_harness_id!r} for "
                        f"{ref}: a native runtime cannot stop for a caller's tool")
                fallbacks.append(ModelFallback(
                    str(ref), skipped="runtime cannot take the caller's tools"))
                continue
            if opts.caller_results and not results_stored:
                if record is None:
                    raise ClientToolError("tool results need the session the tool calls "
                                          f"were made in, and {turn.session_key} has none")
                await self._attempts.store_caller_results(turn, record, opts.caller_results,
                                                          turn.fence)
                results_stored = True
            recorder.selected(index, str(ref), decision)
            attempt_started = recorder.now_ms()
            if record is None:
                # a new session is born pinned to the harness selected for it
                now = time.time()
                record = SessionRecord(
                    key=turn.session_key, session_id=new_id(), agent_id=turn.agent_id,
                    model_ref=str(ref), agent_harness_id=decision.selected_harness_id,
                    created_at=now, updated_at=now,
                )
                # made with the transcript's first append (one write), or alone
                creating = SessionCreation(self._store, record)
                created = True
            try:
                attempt = await self._attempts.run(turn, candidate, record,
                                                   fresh=created and index == 0,
                                                   after=creating)
            finally:
                if creating is not None:
                    record = await creating  # raises when the row could not be made
                    creating = None
            recorder.attempt_ended(index, attempt.result, attempt_started)
            verdict = decide_fallback(attempt.result, builtin=decision.builtin,
                                      last=index == last, preflight=attempt.preflight)
            if not verdict.records_fallback:
                break
            fallbacks.append(ModelFallback(str(ref), error=attempt.result.terminal.error))
            if verdict.skip_harness:
                skipped_harnesses.add(decision.selected_harness_id)
            if not verdict.tries_next:
                break
        assert attempt is not None and record is not None
        return attempt, record, fallbacks


class _QueuedTurn:
    """The turn of one message as its session's queue runs it (`RunQueued`): called with
    the text the queue admitted (the message, or what it carries) and its `Steering`.

    (An object, not a closure of `TurnRunner.run`: one GC-tracked object a turn in flight
    instead of a function, its closure tuple and six cells.)"""

    __slots__ = ("message", "mode", "opts", "run_id", "runner", "session_key")

    def __init__(self, runner: TurnRunner, session_key: str, message: str, opts: TurnOptions,
                 mode: QueueMode, run_id: str) -> None:
        self.runner = runner
        self.session_key = session_key
        self.message = message
        self.opts = opts
        self.mode = mode
        self.run_id = run_id

    async def __call__(self, text: str, steering: Steering) -> TurnResult:
        runner, session_key, message = self.runner, self.session_key, self.message
        opts, mode, run_id = self.opts, self.mode, self.run_id
        interrupting = None
        offering: SteerOffering | None = None
        if opts.steer_offer and text == message:
            # offered to the turn that ran when it arrived (on a cluster): its answer
            # if that turn took it, else it runs now
            answered = await runner._across.settle(
                Offer(session_key, opts.steer_offer, message),
                timeout=opts.busy_timeout, run_id=run_id)
            if answered is not None:
                return answered
        elif opts.interrupt_offer:
            # the turn before it was asked to stop (on a cluster): the offer goes after
            interrupting = Offer(session_key, opts.interrupt_offer, message)
        elif mode == "steer" and text == message:
            # a turn another process runs on the session takes it, if it can: offered
            # when this turn's first try for the lease meets that turn
            offering = runner._across.offering(session_key, message)
        elif mode == "interrupt" and text == message:
            # a turn another process runs on the session stops at its next check
            # point; this message then runs here, once the lease is this process's
            interrupting = await runner._across.interrupt_elsewhere(session_key, message)
        take, give_back = runner._across.taker(steering.take, steering.untake,
                                               session_key, run_id, steering.abort)
        try:
            return await runner._run_turn(session_key, text, steered_options(
                opts, abort=steering.abort, take_steering=take,
                return_steering=give_back, run_id=run_id), offering)
        finally:
            if interrupting is not None:
                await runner._across.drop(interrupting)
