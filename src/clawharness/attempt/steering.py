"""The turn runner's side of steering across processes (`clawharness.sessions.steering_inbox`).

- The offering side: a `steer` message that finds no turn of its session in this process
  is offered in the store when its turn's first try for the session's writer lease meets
  another process's holder (`SteerOffering`, the `on_busy` of its `hold`: a session
  nobody else holds costs no read); once the turn has the lease, `answer` says whether
  the other process's turn took it (the reply is then that run's) or it runs here,
  under the lease it now holds.
- The holder's side: a turn's `take_steering` takes this process's steered messages and
  claims the offers of other processes (`taker`); what its runtime refuses goes back to
  where it came from.
- Interrupts: an `interrupt` message that finds the session held by another process's
  turn is offered addressed to that turn (`interrupt_elsewhere`); the turn finds it in
  the read its `take_steering` makes anyway and sets its own abort (a runtime the host
  drives is stopped through it: Codex's `turn/interrupt`, the CLI's interrupt). The
  message then runs as its own turn once its process has the lease; `drop` removes the
  offer afterwards.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable, Sequence

from clawharness.records.turn_result import QueueDelivery, TurnResult
from clawharness.sessions.steering_inbox import Offer, SteeringInbox
from clawharness.sessions.transcript import entry_run_id
from clawharness.sessions.writers import SessionWriters
from clawharness.store import SessionLeaseBusy, Store

__all__ = ["CrossProcessSteering", "SteerOffering", "turn_purpose"]


def turn_purpose(run_id: str) -> str:
    """What a turn's writer lease says it is for (part of its holder name)."""
    return f"turn {run_id}"


class CrossProcessSteering:
    """Steered messages between the processes sharing the host's store."""

    def __init__(self, store: Store, writers: SessionWriters) -> None:
        self._store = store
        self._writers = writers
        self._inbox = SteeringInbox(store)

    def _held_elsewhere(self, held: bool, holder: str | None) -> bool:
        return held and not (holder or "").startswith(self._writers.holder)

    async def offer_to_holder(self, busy: SessionLeaseBusy, session_key: str,
                              message: str) -> Offer | None:
        """Offer `message` when `busy` (a try for the session's lease) met another
        process's holder; None when the holder is this process or nobody holds it."""
        if not self._held_elsewhere(busy.held, busy.holder):
            return None
        return await self._inbox.offer(session_key, message)

    def offering(self, session_key: str, message: str) -> SteerOffering:
        """`message`'s offer to another process's turn, made if its turn's first try for
        the lease finds one holding it (`SteerOffering.on_busy`, for `hold`)."""
        return SteerOffering(self, session_key, message)

    async def answer(self, offering: SteerOffering, run_id: str) -> TurnResult | None:
        """Under the lease (the offering's turn holds it now): the answer of the turn
        that took the offer, or None when nobody did (withdrawn: it runs here). Without
        an offer, None at once."""
        offer = offering.offer
        if offer is None:
            return None
        claimed_by = await self._inbox.settle(offer)
        offering.offer = None  # its row is gone, taken or not
        if claimed_by is None:
            return None
        return await self._answer_of(offer.session_key, claimed_by)

    async def withdraw(self, offering: SteerOffering) -> None:
        """The offering's turn went away (gave up waiting, cancelled): an offer nobody
        took yet is withdrawn, so no turn takes a message whose caller is gone."""
        offer, offering.offer = offering.offer, None
        if offer is not None:
            with contextlib.suppress(Exception):
                await asyncio.shield(self._inbox.withdraw(offer))

    async def interrupt_elsewhere(self, session_key: str, message: str) -> Offer | None:
        """When another process's turn holds the session now: ask it to stop at its
        next check point (`message` runs here after it). None: nobody else holds it."""
        leases = self._writers.store
        if leases is None:
            return None
        state = await leases.session_lease_state(session_key)
        if not state.holder or not self._held_elsewhere(state.held, state.holder):
            return None
        return await self._inbox.offer_interrupt(session_key, message, state.holder)

    async def drop(self, offer: Offer) -> None:
        """Remove an interrupt offer once its message's turn is over (or gave up)."""
        await asyncio.shield(self._inbox.drop(offer))

    async def settle(self, offer: Offer, *, timeout: float | None,
                     run_id: str) -> TurnResult | None:
        """Once the turn that held the session is over (this process gets the lease):
        that turn's answer when it took the offer, else None (withdrawn: run it here)."""
        async with self._writers.hold(offer.session_key, timeout=timeout,
                                      purpose=f"steer {run_id}"):
            claimed_by = await self._inbox.settle(offer)
            if claimed_by is None:
                return None
            return await self._answer_of(offer.session_key, claimed_by)

    async def _answer_of(self, session_key: str, run_id: str) -> TurnResult:
        record = await self._store.get_session(session_key)
        text, runtime, session_id = "", "", ""
        if record is not None:
            session_id, runtime = record.session_id, record.agent_harness_id or ""
            for entry in reversed(await self._store.read_entries(session_id, last=200)):
                if entry_run_id(entry) == run_id and entry.role == "assistant" and entry.text:
                    text = entry.text
                    break
        return TurnResult(session_key=session_key, session_id=session_id, run_id=run_id,
                          runtime=runtime, selected_reason="steered", terminal="ok",
                          text=text, queue=QueueDelivery("steer", "steered"))

    def taker(self, local: Callable[[], Awaitable[Sequence[str]]],
              give_back: Callable[[Sequence[str]], Awaitable[None]], session_key: str,
              run_id: str, abort: asyncio.Event | None = None,
              ) -> tuple[Callable[[], Awaitable[Sequence[str]]],
                         Callable[[Sequence[str]], Awaitable[None]]]:
        """`take_steering` and `return_steering` for a turn: this process's messages,
        then the offers of other processes; a refused batch goes back where it came from
        (the offers are opened again before the turn ends, so their processes run them).
        An interrupt addressed to the turn (same read) sets `abort` and takes nothing:
        the messages steered meanwhile run after it, in their arrival place."""
        taker = _Taker(self._inbox, local, give_back, session_key, run_id,
                       self._writers.holder_for(turn_purpose(run_id)), abort)
        return taker, taker.returned


class _Taker:
    """`CrossProcessSteering.taker`'s pair: the object is `take_steering` (called), its
    `returned` is `return_steering`. (An object, not two closures over nine variables:
    a turn in flight keeps fewer objects alive for the cyclic GC to walk.)"""

    __slots__ = ("_abort", "_give_back", "_holder", "_inbox", "_local", "_mine", "_run_id",
                 "_session_key", "_theirs")

    def __init__(self, inbox: SteeringInbox, local: Callable[[], Awaitable[Sequence[str]]],
                 give_back: Callable[[Sequence[str]], Awaitable[None]], session_key: str,
                 run_id: str, holder: str, abort: asyncio.Event | None) -> None:
        self._inbox = inbox
        self._local = local
        self._give_back = give_back
        self._session_key = session_key
        self._run_id = run_id
        self._holder = holder
        self._abort = abort
        #: what the last take gave: this process's messages, the offers it claimed
        self._mine: Sequence[str] = ()
        self._theirs: Sequence[Offer] = ()

    async def __call__(self) -> Sequence[str]:
        inbox = self._inbox
        theirs: Sequence[Offer] = ()
        if not inbox.nothing_offered():  # (mostly: the store knows, without a read)
            found = await inbox.take(self._session_key, self._run_id, self._holder)
            if found.interrupt is not None:
                if self._abort is not None:
                    self._abort.set()
                return ()
            theirs = found.offers
        mine = await self._local()
        if type(mine) is not tuple:  # (kept as given: a list the runtime changes is not)
            mine = tuple(mine)
        self._mine, self._theirs = mine, theirs
        return [*mine, *[offer.text for offer in theirs]] if theirs else mine

    async def returned(self, messages: Sequence[str]) -> None:
        mine, theirs = self._mine, self._theirs
        self._mine = self._theirs = ()
        if mine:
            await self._give_back(mine)
        if theirs:
            await self._inbox.unclaim(theirs, self._run_id)


class SteerOffering:
    """A steered message's offer to the turn another process runs on its session,
    made only when its own turn's first try for the lease meets that turn (`on_busy`).
    `offer`: the offer in the store, until `CrossProcessSteering.answer` settles it."""

    __slots__ = ("_message", "_session_key", "_steering", "offer")

    def __init__(self, steering: CrossProcessSteering, session_key: str, message: str) -> None:
        self._steering = steering
        self._session_key = session_key
        self._message = message
        self.offer: Offer | None = None

    async def on_busy(self, busy: SessionLeaseBusy) -> None:
        if self.offer is None:
            self.offer = await self._steering.offer_to_holder(busy, self._session_key,
                                                              self._message)
