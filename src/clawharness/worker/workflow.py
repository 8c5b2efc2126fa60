"""`SessionWorkflow`: the turns of one session key, one at a time, in arrival order.

Fronts signal-with-start it (`SUBMIT_SIGNAL`); Temporal orders the signals, so turns
from every front of the cluster queue in the order the server received them. Each turn
is one activity that a worker runs; the workflow only sequences them. A turn runs as a
local activity (`LOCAL_TURN_ACTIVITY`) on the worker that runs the workflow task when
that worker has room, or gets it before any other does (one workflow task per turn,
no activity task), else as an activity (`TURN_ACTIVITY`) on the own queue of the
worker that said it has room, or on the shared queue, or on the queue of the worker
its native runtime lives on (see `clawharness.worker.activities`).
Its history holds turn requests, never transcripts, and it continues as new every
`turns_per_run` turns (100) (or when Temporal suggests it), carrying the queue across. An idle
workflow completes; the next submit starts a fresh one.

Deterministic code only: this module runs in Temporal's workflow sandbox.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
from datetime import timedelta

from temporalio import workflow
from temporalio.common import RetryPolicy
from temporalio.exceptions import ActivityError, TimeoutType
from temporalio.exceptions import TimeoutError as TemporalTimeoutError

with workflow.unsafe.imports_passed_through():
    from clawharness.cluster.messages import (
        FAILURE_ACTIVITY,
        LOCAL_TURN_ACTIVITY,
        SPILL_REFUSED,
        STEER_OFFER_ACTIVITY,
        SUBMIT_SIGNAL,
        TURN_ACTIVITY,
        WITHDRAW_SIGNAL,
        WITHDRAWN_ACTIVITY,
        WORKFLOW_TYPE,
        LocalTurn,
        SessionWorkflowInput,
        SteerOffer,
        TurnFailure,
        TurnRequest,
    )

__all__ = ["SessionWorkflow"]

#: a workflow begun before the idle clock, with nothing queued for this long, completes
IDLE = timedelta(minutes=10)
#: a turn retried this often (each time after its worker went silent) is failed
TURN_ATTEMPTS = 5
#: how often a turn is tried here and sent to a peer that said it has room, before it
#: goes to the shared queue
SPILL_ATTEMPTS = 3
#: workflows that scheduled turns before local turns existed replay without them
LOCAL_TURNS_PATCH = "turns-run-where-scheduled"
#: workflows that queued every message before steering existed replay without offers
STEER_PATCH = "steer-into-running-turn"
#: ... and without interrupts of the running turn
INTERRUPT_PATCH = "interrupt-running-turn"
_OFFER_RETRIES = RetryPolicy(maximum_interval=timedelta(seconds=2), maximum_attempts=3)


@workflow.defn(name=WORKFLOW_TYPE, sandboxed=True)
class SessionWorkflow:
    def __init__(self) -> None:
        self._pending: list[TurnRequest] = []
        self._accepted: set[str] = set()
        self._bound: str | None = None
        #: turns run here when this worker has room, and one idle clock per run (not a
        #: timer per turn); False only for runs begun before either existed
        self._local_turns = False
        self._turns_started = 0
        self._busy = False
        #: the turn running now (an `interrupt` message is addressed to it)
        self._running: TurnRequest | None = None
        self._idle = False
        self._clock: asyncio.Task[None] | None = None
        #: `steer` messages whose offer to the running turn is being made: each waits
        #: in its place in the queue until its offer is made (or failed)
        self._offering: set[str] = set()
        self._offers: set[asyncio.Task[None]] = set()

    @workflow.signal(name=SUBMIT_SIGNAL)
    def submit(self, request: TurnRequest) -> None:
        # a front that re-sends its signal (a retried RPC) queues its turn once
        if request.turn_id not in self._accepted:
            self._accepted.add(request.turn_id)
            self._pending.append(request)
            running = self._running
            if running is None:
                return
            if (request.queue_mode == "steer" and len(self._pending) == 1
                    and workflow.patched(STEER_PATCH)):
                # a steer for the running turn, with nothing waiting ahead of it: offered
                # in the store, where the turn takes it at its next tool boundary
                self._start_offer(request, "")
            elif request.queue_mode == "interrupt" and workflow.patched(INTERRUPT_PATCH):
                # the running turn is asked (in the store) to stop at its next tool
                # boundary; the message runs in its place in the queue
                self._start_offer(request, running.turn_id)

    def _start_offer(self, request: TurnRequest, interrupt: str) -> None:
        self._offering.add(request.turn_id)
        task = asyncio.create_task(self._offer(request, interrupt))
        self._offers.add(task)
        task.add_done_callback(self._offers.discard)

    async def _offer(self, request: TurnRequest, interrupt: str) -> None:
        """Offer the steer message (its turn, still queued here, settles the offer first:
        taken by the running turn, it answers with that turn's reply), or ask the running
        turn `interrupt` to stop (the message's turn removes that offer once it ran)."""
        key = ""
        try:
            key = await workflow.execute_local_activity(
                STEER_OFFER_ACTIVITY,
                SteerOffer(request.session_key, request.message, interrupt=interrupt),
                result_type=str, start_to_close_timeout=timedelta(seconds=30),
                retry_policy=_OFFER_RETRIES)
        except ActivityError:
            pass  # not offered: it runs as the next turn
        finally:
            self._offering.discard(request.turn_id)
        for index, queued in enumerate(self._pending):
            if queued.turn_id == request.turn_id:
                self._pending[index] = (
                    dataclasses.replace(queued, interrupt_offer=key) if interrupt
                    else dataclasses.replace(queued, steer_offer=key))
                return
        if key:  # withdrawn while it was being offered: no turn may take it now
            with contextlib.suppress(ActivityError):
                await workflow.execute_local_activity(
                    STEER_OFFER_ACTIVITY, SteerOffer(request.session_key, key=key),
                    result_type=str, start_to_close_timeout=timedelta(seconds=30),
                    retry_policy=_OFFER_RETRIES)

    @workflow.signal(name=WITHDRAW_SIGNAL)
    async def withdraw(self, turn_id: str) -> None:
        """A front aborted `turn_id`: if it still waits here, it leaves the queue and its
        caller hears `aborted` now, not when the turns before it are done. A turn that
        runs, or has not arrived, is left to the relay's abort row."""
        for index, request in enumerate(self._pending):
            if request.turn_id == turn_id:
                del self._pending[index]
                await workflow.execute_activity(
                    WITHDRAWN_ACTIVITY, request, start_to_close_timeout=timedelta(seconds=60),
                    retry_policy=RetryPolicy(maximum_interval=timedelta(seconds=5)))
                return

    @workflow.query(name="pending_turns")
    def pending_turns(self) -> list[str]:
        return [r.turn_id for r in self._pending]

    @workflow.run
    async def run(self, start: SessionWorkflowInput) -> int:
        # turns carried over from the previous run go before any signalled since
        carried = [r for r in start.pending if r.turn_id not in self._accepted]
        self._accepted.update(r.turn_id for r in carried)
        self._pending = carried + self._pending
        self._bound = start.bound_queue
        turns_run = start.turns_run
        ran_here = 0
        self._local_turns = workflow.patched(LOCAL_TURNS_PATCH)
        if self._local_turns:
            self._clock = asyncio.create_task(self._idle_clock(start.idle_seconds))
        while True:
            if self._local_turns:
                await workflow.wait_condition(lambda: bool(self._pending) or self._idle)
                if not self._pending:
                    return turns_run
            else:
                try:
                    await workflow.wait_condition(lambda: bool(self._pending), timeout=IDLE)
                except TimeoutError:
                    if not self._pending:
                        return turns_run
            if self._offering:
                # the next message's offer is being made: it runs (or settles) after
                await workflow.wait_condition(
                    lambda: not self._pending or self._pending[0].turn_id not in self._offering)
                if not self._pending:
                    continue
            request = self._pending.pop(0)
            if self._idle:  # a turn came as the clock ran out: the workflow lives on
                self._idle = False
                self._clock = asyncio.create_task(self._idle_clock(start.idle_seconds))
            self._turns_started += 1
            self._busy = True
            self._running = request
            try:
                self._bound = await self._run_turn(request, start)
            finally:
                self._busy = False
                self._running = None
            turns_run += 1
            ran_here += 1
            if (ran_here >= start.turns_per_run
                    or workflow.info().is_continue_as_new_suggested()):
                await workflow.wait_condition(
                    lambda: workflow.all_handlers_finished() and not self._offering)
                workflow.continue_as_new(dataclasses.replace(
                    start, pending=list(self._pending), turns_run=turns_run,
                    bound_queue=self._bound))

    async def _idle_clock(self, seconds: float) -> None:
        """Marks the workflow idle once a whole period passed with no turn started or
        running: one timer per period, where a timeout per wait would start and cancel
        a timer on every turn."""
        seen = -1
        while True:
            await asyncio.sleep(seconds)
            if not self._busy and not self._pending and self._turns_started == seen:
                self._idle = True
                return
            seen = self._turns_started

    async def _run_turn(self, request: TurnRequest, start: SessionWorkflowInput) -> str | None:
        """Run the turn where its native runtime lives (the bound worker's queue), else
        here (this workflow task's worker) when it has room, else on the queue of a
        worker that said it has room, else on any worker; a worker's own queue not
        taken within `rebind_seconds` (the worker died) moves the turn on. Returns the
        queue the session is bound to afterwards (None: not bound)."""
        if self._bound is not None:
            bound = self._bound
            taken, placed = await self._on_own_queue(request, start, bound, failed=bound)
            if taken:
                return placed
            request = dataclasses.replace(request, resumed=True)
        # a turn sent to a peer that had no room by then comes back here, where its
        # workflow is, rather than to whichever worker polls the shared queue first
        for _ in range(SPILL_ATTEMPTS if self._local_turns else 0):
            try:
                here = await self._local_turn(request)
            except ActivityError as exc:
                await self._report_failure(request, exc)
                return None
            if here.ran:
                return here.bound_queue
            if here.spill_to is None:
                break
            taken, placed = await self._on_own_queue(
                dataclasses.replace(request, spilled=True), start, here.spill_to,
                failed=None)
            if taken and placed != SPILL_REFUSED:
                return placed
        try:
            placed = await self._turn_activity(request, start, None)
            return placed
        except ActivityError as exc:
            await self._report_failure(request, exc)
            return None

    async def _on_own_queue(self, request: TurnRequest, start: SessionWorkflowInput,
                            queue: str, *, failed: str | None) -> tuple[bool, str | None]:
        """The turn on one worker's own queue: (True, the bound queue after it) when
        that worker took it (after a failure, reported: `failed`), (False, None) when it
        did not within `rebind_seconds`."""
        try:
            placed: str | None = await self._turn_activity(
                request, start, queue, schedule_to_start=timedelta(seconds=start.rebind_seconds))
            return True, placed
        except ActivityError as exc:
            cause = exc.cause
            if (isinstance(cause, TemporalTimeoutError)
                    and cause.type == TimeoutType.SCHEDULE_TO_START):
                return False, None
            await self._report_failure(request, exc)
            return True, failed

    async def _report_failure(self, request: TurnRequest, exc: ActivityError) -> None:
        """The caller is waiting on the turn's events: tell it the turn failed."""
        cause = exc.cause if exc.cause is not None else exc
        await workflow.execute_activity(
            FAILURE_ACTIVITY, TurnFailure(request.turn_id, request.session_key,
                                          f"the turn failed on the cluster: {cause}"),
            start_to_close_timeout=timedelta(seconds=60),
            retry_policy=RetryPolicy(maximum_interval=timedelta(seconds=5)))

    async def _local_turn(self, request: TurnRequest) -> LocalTurn:
        """The turn on this workflow task's worker, or its refusal (no free slot)."""
        here: LocalTurn = await workflow.execute_local_activity(
            LOCAL_TURN_ACTIVITY, request, result_type=LocalTurn,
            start_to_close_timeout=_turn_budget(request), retry_policy=_TURN_RETRIES)
        return here

    async def _turn_activity(self, request: TurnRequest, start: SessionWorkflowInput,
                             queue: str | None, *,
                             schedule_to_start: timedelta | None = None) -> str | None:
        heartbeat = timedelta(seconds=start.heartbeat_seconds * 3)
        placed: str | None = await workflow.execute_activity(
            TURN_ACTIVITY, request, task_queue=queue, result_type=str | None,  # type: ignore[arg-type]
            start_to_close_timeout=_turn_budget(request), heartbeat_timeout=heartbeat,
            schedule_to_start_timeout=schedule_to_start, retry_policy=_TURN_RETRIES)
        return placed


_TURN_RETRIES = RetryPolicy(initial_interval=timedelta(milliseconds=200),
                            maximum_interval=timedelta(seconds=5),
                            maximum_attempts=TURN_ATTEMPTS)


def _turn_budget(request: TurnRequest) -> timedelta:
    return timedelta(seconds=(request.timeout or 3600) + 60)
