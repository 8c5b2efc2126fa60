"""Steering across processes: messages offered in the store to the turn another process
is running on the session (docs/steering.md, "Across processes").

A process that gets a `steer` message for a session whose writer lease another process
holds `offer`s it here, then waits for the lease as its own turn would. The lease
holder's turn `claim`s the session's offers at each tool boundary (a compare-and-set per
offer, so each is claimed once) and takes them as steered messages. When the offering
process gets the lease, the holder's turn is over: it `settle`s its offer, which either
was claimed (its answer is that run's) or is withdrawn now (it runs the message itself).
Offers live in the store's state rows (`PluginStateStore`), namespace `NAMESPACE`.

An `interrupt` message from another process is offered the same way, addressed to the
turn that holds the lease (its holder name): that turn finds it in the same read at its
next tool boundary (`take`) and aborts, claiming nothing; the offering process, waiting
for the lease, then runs the message as its own turn and `drop`s the offer.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Final

from clawharness.store import STEERING_NAMESPACE, PluginStateRecord, PluginStateStore

__all__ = ["NAMESPACE", "Offer", "SteeringInbox", "Taken"]

NAMESPACE: Final = STEERING_NAMESPACE
_SEP: Final = "\x1f"


@dataclass(frozen=True, slots=True)
class Offer:
    """A message offered to the running turn of `session_key` (its row `key`)."""

    session_key: str
    key: str
    text: str


@dataclass(frozen=True, slots=True)
class Taken:
    """What a turn's look at the inbox found: the steered `offers` it claimed, or an
    `interrupt` addressed to it (then it claimed nothing: it stops)."""

    offers: Sequence[Offer] = ()
    interrupt: Offer | None = None


#: what a look at an inbox with nothing in it found (frozen, and its `offers` a tuple:
#: one is shared, not one made per look, which is most of them)
_NOTHING: Final = Taken()


def _row_key(row: PluginStateRecord) -> str:
    return row.key


class SteeringInbox:
    """Offers of steered messages between the processes sharing one store."""

    def __init__(self, store: PluginStateStore) -> None:
        self._store = store
        #: the store's "known to have no rows, without a read" (SQLite's
        #: `state_namespace_quiet`), else None
        self._quiet: Callable[[str], bool] | None = getattr(
            store, "state_namespace_quiet", None)

    def nothing_offered(self) -> bool:
        """True when the store knows, without a read, that nothing at all is offered
        (no session's offers, no interrupt): then `take` would find nothing."""
        quiet = self._quiet
        return quiet is not None and quiet(NAMESPACE)

    async def offer(self, session_key: str, text: str) -> Offer:
        """Offer `text` to whichever turn holds the session (in offer order)."""
        key = f"{session_key}{_SEP}{time.time_ns():020d}{_SEP}{uuid.uuid4().hex}"
        await self._store.state_insert_if_absent(NAMESPACE, key, {"text": text})
        return Offer(session_key, key, text)

    async def offer_interrupt(self, session_key: str, text: str, holder: str) -> Offer:
        """Ask the turn whose lease carries `holder` to stop (`text` is the message
        that will run after it; it is not handed to that turn)."""
        key = f"{session_key}{_SEP}{time.time_ns():020d}{_SEP}{uuid.uuid4().hex}"
        await self._store.state_insert_if_absent(NAMESPACE, key,
                                                 {"text": text, "interrupt": holder})
        return Offer(session_key, key, text)

    async def claim(self, session_key: str, run_id: str) -> Sequence[Offer]:
        """The session's open offers, claimed for `run_id`, oldest first."""
        return list((await self.take(session_key, run_id)).offers)

    async def take(self, session_key: str, run_id: str,
                   holder: str | None = None) -> Taken:
        """One read of the session's offers: an interrupt addressed to `holder` (the
        turn's lease holder name) stops here; else the steered offers, claimed for
        `run_id`, oldest first (interrupts addressed to other turns are left alone)."""
        rows = await self._store.state_list(NAMESPACE, prefix=f"{session_key}{_SEP}")
        if not rows:  # (the usual answer: nothing offered)
            return _NOTHING
        rows = sorted(rows, key=_row_key)
        if holder is not None:
            for row in rows:
                value = row.value if isinstance(row.value, dict) else {}
                if value.get("interrupt") == holder:
                    return Taken(interrupt=Offer(session_key, row.key, str(value.get("text"))))
        taken: list[Offer] = []
        for row in rows:
            value = row.value if isinstance(row.value, dict) else {}
            text = value.get("text")
            if "run_id" in value or "interrupt" in value or not isinstance(text, str):
                continue
            claimed = await self._store.state_update_if(
                NAMESPACE, row.key, row.generation, {"text": text, "run_id": run_id})
            if claimed is not None:
                taken.append(Offer(session_key, row.key, text))
        return Taken(offers=taken)

    async def unclaim(self, offers: Sequence[Offer], run_id: str) -> None:
        """Open again offers `run_id` claimed but could not deliver (its runtime refused
        them): the offering process then runs them itself."""
        for offer in offers:
            row = await self._store.state_get(NAMESPACE, offer.key)
            if row is not None and isinstance(row.value, dict) \
                    and row.value.get("run_id") == run_id:
                await self._store.state_update_if(NAMESPACE, offer.key, row.generation,
                                                  {"text": offer.text})

    async def withdraw(self, offer: Offer) -> bool:
        """Take back `offer` unless a turn has claimed it; True when withdrawn."""
        row = await self._store.state_get(NAMESPACE, offer.key)
        if row is None or not isinstance(row.value, dict) or "run_id" in row.value:
            return False
        return await self._store.state_delete_if(NAMESPACE, offer.key, row.generation)

    async def drop(self, offer: Offer) -> None:
        """Remove `offer`'s row, whatever became of it (an interrupt, once its turn ran)."""
        while (row := await self._store.state_get(NAMESPACE, offer.key)) is not None:
            if await self._store.state_delete_if(NAMESPACE, offer.key, row.generation):
                return

    async def settle(self, offer: Offer) -> str | None:
        """The run that claimed `offer`, or None: then it is withdrawn (the offering
        process runs it). Either way its row is gone afterwards."""
        while True:
            row = await self._store.state_get(NAMESPACE, offer.key)
            if row is None:
                return None
            value = row.value if isinstance(row.value, dict) else {}
            if await self._store.state_delete_if(NAMESPACE, offer.key, row.generation):
                run_id = value.get("run_id")
                return run_id if isinstance(run_id, str) else None
