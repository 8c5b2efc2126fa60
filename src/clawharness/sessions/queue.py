"""What happens to a message for a session whose turn is running (docs/steering.md).

Two parts: `decide`, the pure choice for one arriving message, and `SessionQueues`,
the per-session queue of this process that carries the choice out.

The modes (`agents.defaults.queue.mode`, `agents.entries.<id>.queue.mode`, or the
message's own): `steer` hands the message to the running turn, which takes it at its
next tool boundary (the built-in runtime: after a round of tool results, before the next
model call); a message the turn never takes (it answered without another tool round, or
its runtime cannot be steered) runs as the next turn. `followup` runs it as the next turn.
`collect` makes the queued messages that arrived one after another one next turn.
`interrupt` aborts the running turn, then runs the message after it.

Every message is handled exactly once and lands in the transcript in arrival order: a
steer never overtakes a message already waiting (it waits behind it instead), and what
a turn did not take goes back among the waiting messages in its arrival place. Across
processes the session's writer lease orders turns (`clawharness.sessions.writers`): a
message that arrives in a process whose queue holds no turn of the session starts one,
which waits for the lease, so a message for a turn running elsewhere runs after it, as a
followup, in the lease's arrival order.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final, Generic, Literal, TypeVar, get_args

from clawharness.config.schema import QueueMode
from clawharness.errors import ConfigError, MessageWithdrawnError, SessionBusyError
from clawharness.observability.spans import lease_wait_span

if TYPE_CHECKING:
    from clawharness.config.schema import ClawConfig

__all__ = [
    "DEFAULT_QUEUE_MODE",
    "QUEUE_MODES",
    "QueueAction",
    "Queued",
    "SessionQueues",
    "Steering",
    "collected_message",
    "decide",
    "next_batch",
    "parse_queue_mode",
    "resolve_queue_mode",
]

#: OpenClaw's default: steer the running turn
DEFAULT_QUEUE_MODE: Final[QueueMode] = "steer"
QUEUE_MODES: Final[tuple[QueueMode, ...]] = get_args(QueueMode)

#: run: nobody is ahead, start the turn now. steer: hand it to the running turn.
#: wait: queue it for a later turn. interrupt: abort the running turn, then queue it.
QueueAction = Literal["run", "steer", "wait", "interrupt"]

R = TypeVar("R")


def parse_queue_mode(value: str | None) -> QueueMode | None:
    """A queue mode from a front's request (None: none asked); `ConfigError` otherwise."""
    if value is None or value == "":
        return None
    for mode in QUEUE_MODES:
        if value == mode:
            return mode
    raise ConfigError(f"unknown queue mode {value!r}: one of {', '.join(QUEUE_MODES)}",
                      key_path="agents.defaults.queue.mode")


def resolve_queue_mode(config: ClawConfig, agent_id: str,
                       override: QueueMode | None = None) -> QueueMode:
    """The message's mode, else the agent's, else the defaults', else `steer`."""
    if override is not None:
        return override
    entry = config.agents.entries.get(agent_id)
    if entry is not None and entry.queue is not None and entry.queue.mode is not None:
        return entry.queue.mode
    defaults = config.agents.defaults.queue
    if defaults is not None and defaults.mode is not None:
        return defaults.mode
    return DEFAULT_QUEUE_MODE


def decide(mode: QueueMode, *, running: bool, waiting: int = 0) -> QueueAction:
    """What to do with a message arriving in `mode` for a session that has a turn
    `running` (or about to) and `waiting` messages queued behind it."""
    if not running:
        return "run"
    if mode == "interrupt":
        return "interrupt"
    if mode == "steer" and waiting == 0:
        return "steer"
    return "wait"  # followup, collect, and a steer that must not overtake the waiting


def next_batch(modes: Sequence[QueueMode]) -> int:
    """How many of the waiting messages (their modes, in arrival order) the next turn
    takes: a `collect` message takes the `collect` messages right behind it too."""
    if not modes:
        return 0
    if modes[0] != "collect":
        return 1
    count = 1
    while count < len(modes) and modes[count] == "collect":
        count += 1
    return count


def collected_message(messages: Sequence[str]) -> str:
    """The one prompt of a `collect` turn: the messages, in order."""
    return messages[0] if len(messages) == 1 else "\n\n".join(messages)


class Steering:
    """What the queue hands the turn it admits: the abort it sets to interrupt it, and
    `take`, the steered messages not yet taken (`AttemptParams.take_steering`); `untake`
    gives back the last messages `take` gave (the runtime refused them): they wait again
    in their arrival place (`AttemptParams.return_steering`). (An object with methods,
    not closures: a turn in flight keeps fewer objects alive for the cyclic GC to walk.)"""

    __slots__ = ("_lane", "_open", "_taken", "abort")

    def __init__(self, abort: asyncio.Event, lane: _Lane[Any]) -> None:
        self.abort = abort
        self._lane = lane
        #: the turn runs: what it does not take by its end waits as a followup
        self._open = True
        #: the steered tickets the turn took (None: none yet, most turns)
        self._taken: list[_Ticket[Any]] | None = None

    async def take(self) -> Sequence[str]:
        """The steered messages not yet taken, oldest first."""
        lane = self._lane
        if not self._open or not lane.inbox:
            return ()
        steered, lane.inbox = list(lane.inbox), ()
        if self._taken is None:
            self._taken = steered
        else:
            self._taken.extend(steered)
        return tuple(t.message for t in steered)

    async def untake(self, messages: Sequence[str]) -> None:
        """Give back the last `messages` `take` gave: they wait again in their place."""
        taken = self._taken
        count = 0 if taken is None else min(len(messages), len(taken))
        if count == 0 or taken is None:
            return
        back = taken[-count:]
        del taken[-count:]
        lane = self._lane
        if self._open:
            lane.inbox = [*back, *lane.inbox]
        else:
            lane.waiting = sorted((*lane.waiting, *back), key=_seq)


#: run the turn of `message`; the queue admitted it with `steering`
RunQueued = Callable[[str, Steering], Awaitable[R]]


@dataclass(frozen=True, slots=True)
class Queued(Generic[R]):
    """What became of a message: the `result` of the turn that carried it, how it was
    handled (`mode`, None when no turn was running), and `carried` when that turn was
    not its own ("steered" into it, "collected" into one with the messages before it)."""

    result: R
    mode: QueueMode | None = None
    carried: Literal["steered", "collected"] | None = None


@dataclass(eq=False)
class _Ticket(Generic[R]):
    seq: int
    message: str
    mode: QueueMode
    run: RunQueued[R]
    abort: asyncio.Event | None
    #: set once: the batch this ticket heads (its turn may start), or how another ended;
    #: made when the ticket is queued (a message whose turn runs at once waits for none)
    admitted: asyncio.Future[_Admission[R]] = field(init=False)
    queued: bool = False


@dataclass(frozen=True, slots=True)
class _Admission(Generic[R]):
    batch: tuple[_Ticket[R], ...] = ()
    result: Queued[R] | None = None
    error: BaseException | None = None


@dataclass(eq=False)
class _Lane(Generic[R]):
    """One session's queue: is a turn running (or admitted), its abort, the steered
    messages it has not taken, and the messages waiting for later turns."""

    running: bool = False
    abort: asyncio.Event | None = None
    #: each a list once a message is in it (most lanes never have one: a turn that
    #: runs alone keeps no empty lists alive), else ()
    inbox: list[_Ticket[R]] | tuple[()] = ()
    waiting: list[_Ticket[R]] | tuple[()] = ()


class SessionQueues(Generic[R]):
    """This process's queue of each session with a turn running: `submit` a message,
    get what became of it once the turn that carried it ended."""

    def __init__(self) -> None:
        self._lanes: dict[str, _Lane[R]] = {}
        self._seq = 0

    def running(self, session_key: str) -> bool:
        lane = self._lanes.get(session_key)
        return lane is not None and lane.running

    def waiting(self, session_key: str) -> int:
        """Messages queued for the session (steered ones not yet taken included)."""
        lane = self._lanes.get(session_key)
        return 0 if lane is None else len(lane.inbox) + len(lane.waiting)

    async def submit(self, session_key: str, message: str, mode: QueueMode,
                     run: RunQueued[R], *, abort: asyncio.Event | None = None,
                     wait: float | None = None) -> Queued[R]:
        """Run `message`'s turn now, or handle it by `mode` behind the running one.

        `wait`: how long a queued message may wait for its turn (a steered message the
        running turn took waits for that turn's end); then `SessionBusyError`, and the
        message is dropped from the queue, never run."""
        lane = self._lanes.get(session_key)
        if lane is None:
            lane = self._lanes[session_key] = _Lane()
        self._seq += 1
        ticket: _Ticket[R] = _Ticket(self._seq, message, mode, run, abort)
        action = decide(mode, running=lane.running, waiting=len(lane.waiting))
        if action == "run":
            lane.running = True
            return await self._drive(session_key, lane, (ticket,), None)
        ticket.queued = True
        ticket.admitted = asyncio.get_running_loop().create_future()
        if action == "steer":
            lane.inbox = _added(lane.inbox, ticket)
        else:
            lane.waiting = _added(lane.waiting, ticket)
            if action == "interrupt" and lane.abort is not None:
                lane.abort.set()
        try:
            admission = await self._admission(session_key, lane, ticket, wait)
        except asyncio.CancelledError:
            self._withdraw(session_key, lane, ticket)
            raise
        if admission.error is not None:
            raise admission.error
        if admission.result is not None:
            return admission.result
        return await self._drive(session_key, lane, admission.batch, mode)

    async def _admission(self, session_key: str, lane: _Lane[R], ticket: _Ticket[R],
                         wait: float | None) -> _Admission[R]:
        """The ticket's admission; it leaves the queue unrun when its own abort is set
        or `wait` passes first (a steered message already taken waits for its turn)."""
        aborted = None if ticket.abort is None else asyncio.ensure_future(ticket.abort.wait())
        try:
            waits: set[asyncio.Future[object]] = {ticket.admitted}  # type: ignore[arg-type]
            if aborted is not None:
                waits.add(aborted)  # type: ignore[arg-type]
            with lease_wait_span(session_key, "process"):
                await asyncio.wait(waits, timeout=wait, return_when=asyncio.FIRST_COMPLETED)
        finally:
            if aborted is not None:
                aborted.cancel()
        if ticket.admitted.done() or (ticket not in lane.inbox and ticket not in lane.waiting):
            return await ticket.admitted  # admitted, or taken by the running turn
        self._withdraw(session_key, lane, ticket)
        if ticket.abort is not None and ticket.abort.is_set():
            raise MessageWithdrawnError(
                f"the message for session {session_key} was aborted while it waited for "
                "the running turn; it was not run")
        raise SessionBusyError(
            f"session {session_key} is busy with another turn in this process; the "
            f"message waited {wait:g}s in its queue and was dropped. Retry when the "
            "turn has finished, or raise sessions.writerWaitSeconds")

    async def _drive(self, session_key: str, lane: _Lane[R], batch: tuple[_Ticket[R], ...],
                     mode: QueueMode | None) -> Queued[R]:
        """Run the turn of `batch` (one message, or collected ones), then admit the next."""
        head = batch[0]
        abort = head.abort or asyncio.Event()
        lane.abort = abort
        steering = Steering(abort, lane)
        try:
            result = await head.run(collected_message([t.message for t in batch]), steering)
        except BaseException as exc:
            steering._open = False
            for ticket in (*batch[1:], *(steering._taken or ())):
                _settle(ticket, _Admission(error=exc))
            raise
        finally:
            steering._open = False
            lane.abort = None
            # what the turn did not take waits in its arrival place, as a followup
            if lane.inbox:
                lane.waiting = sorted((*lane.waiting, *lane.inbox), key=_seq)
                lane.inbox = ()
            self._advance(session_key, lane)
        for ticket in batch[1:]:
            _settle(ticket, _Admission(result=Queued(result, ticket.mode, "collected")))
        for ticket in steering._taken or ():
            _settle(ticket, _Admission(result=Queued(result, ticket.mode, "steered")))
        return Queued(result, mode)

    def _advance(self, session_key: str, lane: _Lane[R]) -> None:
        """Admit the next waiting batch, or forget the idle session."""
        if not lane.waiting:
            lane.running = False
            if not lane.inbox and self._lanes.get(session_key) is lane:
                del self._lanes[session_key]
            return
        count = next_batch([t.mode for t in lane.waiting])
        batch, lane.waiting = tuple(lane.waiting[:count]), list(lane.waiting[count:])
        lane.running = True
        _settle(batch[0], _Admission(batch=batch))

    def _withdraw(self, session_key: str, lane: _Lane[R], ticket: _Ticket[R]) -> None:
        """A waiting caller went away: drop its message, or pass on the turn it was given."""
        if ticket in lane.inbox:
            lane.inbox = [t for t in lane.inbox if t is not ticket]
        if ticket in lane.waiting:
            lane.waiting = [t for t in lane.waiting if t is not ticket]
        admitted = ticket.admitted
        if admitted.done() and not admitted.cancelled():
            batch = admitted.result().batch
            if batch:  # it was this ticket's turn: the rest of its batch waits again
                lane.waiting = [*batch[1:], *lane.waiting]
                self._advance(session_key, lane)


def _added(queue: list[_Ticket[R]] | tuple[()], ticket: _Ticket[R]) -> list[_Ticket[R]]:
    """`queue` with `ticket` at its end (the list it is, or a new one for ())."""
    if isinstance(queue, list):
        queue.append(ticket)
        return queue
    return [ticket]


def _seq(ticket: _Ticket[Any]) -> int:
    return ticket.seq


def _settle(ticket: _Ticket[R], admission: _Admission[R]) -> None:
    if not ticket.admitted.done():
        ticket.admitted.set_result(admission)
