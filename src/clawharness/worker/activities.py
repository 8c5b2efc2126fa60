"""The turn activities: one turn of one session, run by a worker's in-process host.

A turn first runs as a local activity (`run_turn_here`) on the worker whose workflow
task reached it, when that worker has a free turn slot: no activity task goes through
the server, the cheapest path there is. That worker's liveness is its workflow task's:
the SDK heartbeats the task while the turn runs, and a worker that dies has the task
time out (`3 x cluster.heartbeatSeconds`) and retried on another worker, which runs the
turn again. A worker with every slot taken sends the turn on only where another worker
has room: each worker announces its free slots on the relay when they change
(`clawharness.worker.slots`), and a full one declines the turn to the own queue of a
peer that said it has room, one announced slot per turn (which hands a `spilled` turn
back at once if its room went to another turn meanwhile: the workflow then tries here
again). With no peer having room it keeps the turn and waits for a slot of its own (at
most `LOCAL_WAIT_SECONDS`, then any worker's queue): sent away, the turn would only
come back as an activity, at about twice the work for the server and for itself.
Turns of a native session bound to a worker are ordinary activities on that worker's
own queue.
An ordinary activity heartbeats every `cluster.heartbeatSeconds`, and Temporal retries
it elsewhere after three missed beats.

The session writer lease (and a native binding's lease) are renewed by the same process
on their own timers, so they lapse with the worker; the retry waits for the dead
worker's lease to expire (`sessions.writerLeaseSeconds`), then takes it with the next
fence, so a late write of the dead worker could never land.

A retried turn runs the same `turn_id` as its run id: the transcript's idempotency keys
make its re-mirrored messages no-ops, the turn sees its transcript end with its own run
and continues it (`resumedRun`), and the tool-outcome ledger replays or refuses its
tool calls (see `clawharness.tools.outcomes`).

A `steer` message for a session whose turn runs is offered to that turn in the store's
steering inbox (`offer_steered`, a local activity the workflow starts when the message
arrives); the message's own turn settles the offer first (`TurnOptions.steer_offer`):
taken, its answer is the running turn's reply; else it runs as the next turn.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
from typing import TYPE_CHECKING, Any

from temporalio import activity

from clawharness.attempt import turn_purpose
from clawharness.attempt.turn import TurnOptions
from clawharness.cluster.events import TurnEventRelay, abort_key
from clawharness.cluster.messages import (
    FAILURE_ACTIVITY,
    LOCAL_TURN_ACTIVITY,
    SPILL_REFUSED,
    STEER_OFFER_ACTIVITY,
    TURN_ACTIVITY,
    WITHDRAWN_ACTIVITY,
    LocalTurn,
    SteerOffer,
    TurnFailure,
    TurnRequest,
    worker_queue,
)
from clawharness.cluster.questions import RelayedApprovals, RelayedUserInput
from clawharness.cluster.results import failed_result, result_to_wire, withdrawn_result
from clawharness.errors import ClawHarnessError, SessionBusyError
from clawharness.records.turn_result import ClusterPlacement
from clawharness.sessions import Offer, SteeringInbox
from clawharness.worker.newest import NewestOnly
from clawharness.worker.slots import RoomAnnouncer, RoomBoard, TurnSlots

if TYPE_CHECKING:
    from clawharness.host import Host

__all__ = ["TurnActivities"]

#: the built-in runtime runs in the worker's own process and holds nothing between turns
BUILT_IN_RUNTIME = "openclaw"

log = logging.getLogger("clawharness.cluster.activities")

#: how often a running turn looks for an abort whose notification it may have missed
ABORT_POLL_SECONDS = 5.0
#: the longest a local turn waits for a slot here, no peer having room, before it goes
#: to any worker; the wait counts against the local activity's time budget, which
#: leaves 60 s beyond the turn's own timeout
LOCAL_WAIT_SECONDS = 30.0


class TurnActivities:
    """The activities a worker registers, bound to its host and relay."""

    def __init__(self, host: Host, relay: TurnEventRelay, *, heartbeat_seconds: float,
                 worker_id: str, task_queue: str, max_concurrent_turns: int) -> None:
        self._host = host
        self._relay = relay
        self._heartbeat_seconds = heartbeat_seconds
        self.worker_id = worker_id
        self.task_queue = task_queue
        self.own_queue = worker_queue(task_queue, worker_id)
        #: the worker's cap across its two queues (each Temporal worker has its own slots)
        self.slots = TurnSlots(max_concurrent_turns)
        #: the other workers' free slots, as they announced them on the relay
        self.board = RoomBoard(task_queue, worker_id)
        self.announce = RoomAnnouncer(
            lambda free: relay.announce_room(task_queue, worker_id, free))

    async def _take(self) -> None:
        await self.slots.take()
        self._took()

    def _took(self) -> None:
        if self.slots.free == 0:
            self.announce(0)

    def _give_back(self) -> None:
        self.slots.give_back()
        if self.slots.free > 0:
            self.announce(self.slots.free)

    def _partials(self, turn_id: str) -> NewestOnly[str]:
        """The turn's partial replies to the relay: each carries the whole text so far,
        so only the newest waiting one matters (a lost one never fails the turn)."""
        async def relay(text: str) -> None:
            await self._relay.append(turn_id, "partial", {"text": text})

        return NewestOnly(relay, what=f"turn {turn_id}: a partial reply")

    async def _heartbeat(self) -> None:
        # the first beat after one interval: a turn shorter than that sends none
        while True:
            await asyncio.sleep(self._heartbeat_seconds)
            activity.heartbeat(self.worker_id)

    @activity.defn(name=LOCAL_TURN_ACTIVITY)
    async def run_turn_here(self, request: TurnRequest) -> LocalTurn:
        """Run the turn in this worker if it has a free slot, or gets one before a peer
        says it has room; else decline (`ran` False) so the workflow sends the turn to
        that peer (`spill_to`), or to any worker."""
        declined = await self._slot_here_or_peer()
        if declined is not None:
            return declined
        try:
            attempt = activity.info().attempt
            partials = self._partials(request.turn_id)
            if attempt > 1:
                await self._relay.append(request.turn_id, "retry",
                                         {"attempt": attempt, "worker": self.worker_id})
            queue = await self._run(request, attempt, partials)
        finally:
            self._give_back()
        return LocalTurn(ran=True, bound_queue=queue)

    async def _slot_here_or_peer(self) -> LocalTurn | None:
        """None: a slot here is taken. Else the refusal that says where the turn should
        go: the own queue of a peer that announced room, or any worker's after
        `LOCAL_WAIT_SECONDS`. Sending a turn away when no peer has room would bring it
        back here as an activity, at about twice the work for the server and for this
        worker."""
        if self.slots.try_take():
            self._took()
            return None
        loop = asyncio.get_running_loop()
        give_up = loop.time() + LOCAL_WAIT_SECONDS
        while (peer := self.board.claim()) is None:
            left = give_up - loop.time()
            if left <= 0:
                return LocalTurn(ran=False)
            taking = asyncio.ensure_future(self._take())
            room = asyncio.ensure_future(self.board.wait_for_room())
            try:
                await asyncio.wait({taking, room}, timeout=left,
                                   return_when=asyncio.FIRST_COMPLETED)
            finally:
                room.cancel()
                if not taking.done():
                    taking.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await taking
            if taking.done() and not taking.cancelled():
                return None
        return LocalTurn(ran=False, spill_to=worker_queue(self.task_queue, peer))

    @activity.defn(name=TURN_ACTIVITY)
    async def run_turn(self, request: TurnRequest) -> str | None:
        """Run the turn; returns this worker's own queue when the session's native
        runtime now lives here (its next turns come here), else None; `SPILL_REFUSED`
        for a spilled turn that found no slot free (another turn took its room)."""
        holding = request.spilled
        if holding:
            if not self.slots.try_take():
                return SPILL_REFUSED
            self._took()
        attempt = activity.info().attempt
        beating = asyncio.ensure_future(self._heartbeat())  # while it waits for a slot too
        try:
            if attempt > 1:
                await self._relay.append(request.turn_id, "retry",
                                         {"attempt": attempt, "worker": self.worker_id})
            if not holding:
                await self._take()
                holding = True
            partials = self._partials(request.turn_id)
            return await self._run(request, attempt, partials)
        finally:
            if holding:
                self._give_back()
            beating.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await beating

    async def _watch_for_abort(self, turn_id: str, abort: asyncio.Event) -> None:
        """Set `abort` once the turn's front asks for it (before the turn started, too)."""
        woke = self._relay.subscribe(abort_key(turn_id))
        try:
            while True:
                woke.clear()
                try:
                    if await self._relay.abort_requested(turn_id):
                        abort.set()
                        return
                except ClawHarnessError as exc:  # the turn goes on; the next look may do
                    log.warning("turn %s: could not look for an abort: %s", turn_id, exc)
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(woke.wait(), ABORT_POLL_SECONDS)
        finally:
            self._relay.unsubscribe(abort_key(turn_id), woke)

    async def _run(self, request: TurnRequest, attempt: int,
                   partials: NewestOnly[str]) -> str | None:
        abort = asyncio.Event()
        options = TurnOptions(run_id=request.turn_id, model=request.model,
                              thinking=request.thinking,
                              max_steps=request.max_steps, timeout=request.timeout,
                              on_partial_reply=partials if request.partials else None,
                              durable_tools=True,
                              resumes_run=attempt > 1 or request.resumed, abort=abort,
                              steer_offer=request.steer_offer or None,
                              interrupt_offer=request.interrupt_offer or None,
                              trace_context=request.trace or None,
                              approvals=(RelayedApprovals(self._relay, request.turn_id)
                                         if request.approvals else None),
                              user_input=(RelayedUserInput(self._relay, request.turn_id)
                                          if request.user_input else None))
        # only a front whose caller can abort writes an abort row for the turn
        watching = (asyncio.ensure_future(self._watch_for_abort(request.turn_id, abort))
                    if request.abortable else None)
        try:
            result = await self._host.run_turn(request.session_key, request.message,
                                               options)
        except SessionBusyError:
            raise  # another worker still holds the session: Temporal retries
        except ClawHarnessError as exc:
            result = failed_result(request.session_key, request.turn_id, str(exc),
                                   error_type=exc.code)
        finally:
            if watching is not None:
                watching.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await watching
        await partials.flush()
        # which worker ran it, on which attempt: for the caller, and for the logs
        placed = ClusterPlacement(worker=self.worker_id, attempt=attempt,
                                  local=activity.info().is_local)
        result = dataclasses.replace(result, cluster=placed)
        await self._relay.append(request.turn_id, "result", result_to_wire(result))
        native = result.runtime not in ("", BUILT_IN_RUNTIME)
        return self.own_queue if native else None

    @activity.defn(name=FAILURE_ACTIVITY)
    async def report_failure(self, failure: TurnFailure) -> None:
        result = failed_result(failure.session_key, failure.turn_id, failure.error)
        await self._relay.append(failure.turn_id, "result", result_to_wire(result))

    @activity.defn(name=WITHDRAWN_ACTIVITY)
    async def report_withdrawn(self, request: TurnRequest) -> None:
        # no turn may take the message of a caller gone, nor stop for it
        for key in (request.steer_offer, request.interrupt_offer):
            if key:
                await SteeringInbox(self._host.store).withdraw(
                    Offer(request.session_key, key, request.message))
        result = withdrawn_result(request.session_key, request.turn_id)
        await self._relay.append(request.turn_id, "result", result_to_wire(result))

    @activity.defn(name=STEER_OFFER_ACTIVITY)
    async def offer_steered(self, asked: SteerOffer) -> str:
        """Offer a steer message to the session's running turn (its row's key), or
        withdraw the offer `asked.key` (a message withdrawn while it was offered)."""
        inbox = SteeringInbox(self._host.store)
        if asked.key:
            await inbox.withdraw(Offer(asked.session_key, asked.key, asked.message))
            return ""
        if asked.interrupt:
            # addressed to the running turn's lease (none yet, or another's: not offered)
            state = await self._host.store.session_lease_state(asked.session_key)
            holder = state.holder or ""
            if not state.held or not holder.endswith(f"({turn_purpose(asked.interrupt)})"):
                return ""
            return (await inbox.offer_interrupt(asked.session_key, asked.message,
                                                holder)).key
        return (await inbox.offer(asked.session_key, asked.message)).key

    def all(self) -> list[Any]:
        return [self.run_turn_here, self.run_turn, self.report_failure, self.report_withdrawn,
                self.offer_steered]
