"""The values that cross Temporal (JSON through its default converter): plain
dataclasses of strings and numbers. Transcripts never travel here: they live in the
store, and a workflow's history holds only these small requests.

No `from __future__ import annotations` here: Temporal's converter reads a dataclass's
type hints on every decode, and string annotations cost an evaluation each time (a
`TurnRequest` decoded in 108 us instead of 293)."""

from dataclasses import dataclass, field

__all__ = [
    "FAILURE_ACTIVITY",
    "LOCAL_TURN_ACTIVITY",
    "SPILL_REFUSED",
    "STEER_OFFER_ACTIVITY",
    "SUBMIT_SIGNAL",
    "TURN_ACTIVITY",
    "WITHDRAWN_ACTIVITY",
    "WITHDRAW_SIGNAL",
    "LocalTurn",
    "SessionWorkflowInput",
    "SteerOffer",
    "TurnFailure",
    "TurnRequest",
    "worker_queue",
    "workflow_id_for",
]

#: the signal a front sends (with start) to queue a turn on a session's workflow
SUBMIT_SIGNAL = "submit_turn"
#: the activity that runs one turn on a worker
TURN_ACTIVITY = "run_session_turn"
#: the local activity that runs one turn on the worker whose workflow task scheduled it,
#: when that worker has a free turn slot (else it declines and `TURN_ACTIVITY` queues it)
LOCAL_TURN_ACTIVITY = "run_session_turn_here"
#: the activity that reports a turn whose every attempt failed to its waiting front
FAILURE_ACTIVITY = "report_turn_failure"
#: the signal a front sends when a turn it submitted is aborted: a turn still queued
#: leaves the queue at once (one already running is stopped through the relay)
WITHDRAW_SIGNAL = "withdraw_turn"
#: the activity that reports a withdrawn turn, `aborted`, to its waiting front
WITHDRAWN_ACTIVITY = "report_turn_withdrawn"
#: the local activity that offers a `steer` message to the turn its session runs now
#: (the store's steering inbox), asks that turn to stop for an `interrupt` message, or
#: withdraws such an offer (docs/steering.md, "On a cluster")
STEER_OFFER_ACTIVITY = "offer_steered_message"
WORKFLOW_TYPE = "ClawharnessSession"


def workflow_id_for(task_queue: str, session_key: str) -> str:
    """One workflow per session key, cluster-wide, for the fleet polling `task_queue`
    (fleets on other task queues of one namespace, e.g. staging, never share one)."""
    return f"clawharness-session:{task_queue}:{session_key}"

def worker_queue(task_queue: str, worker_id: str) -> str:
    """The task queue only `worker_id` polls (turns of sessions bound to it, and turns a
    full worker sends it after it announced room)."""
    return f"{task_queue}@{worker_id}"


@dataclass
class TurnRequest:
    """One turn a front submitted; `turn_id` is the turn's run id everywhere (the
    transcript's idempotency keys, the tool-outcome keys, the event relay)."""

    turn_id: str
    session_key: str
    message: str
    model: str | None = None
    max_steps: int | None = None
    timeout: float | None = None
    #: which front submitted it (for logs and the workflow's history)
    front: str = ""
    #: an earlier run of this turn was lost (its worker died): resume, do not repeat
    resumed: bool = False
    #: the front's W3C trace context, so the worker's spans of the turn join its trace
    trace: dict[str, str] = field(default_factory=dict)
    #: the front's caller can answer approvals / questions for the user: the worker
    #: relays them (`clawharness.cluster.questions`); else the turn runs without
    approvals: bool = False
    user_input: bool = False
    #: the front's caller follows partial replies; else the worker relays none (a row and
    #: a notification saved per partial). True for a request from a front before the field
    partials: bool = True
    #: the front's caller can abort the turn (`TurnOptions.abort`): the worker watches the
    #: relay for its abort row; else no abort can come and it watches nothing (a look-up
    #: and a listener saved per turn). True for a request from a front before the field
    abortable: bool = True
    #: sent by a full worker to the own queue of one that said it has room: the worker
    #: takes it only with a slot free now, else hands it back (`SPILL_REFUSED`)
    spilled: bool = False
    #: the message's thinking level (`TurnOptions.thinking`; docs/thinking.md)
    thinking: str | None = None
    #: the message's queue mode as its front resolved it (`steer` may be offered to the
    #: session's running turn; None from a front before the field: a followup)
    queue_mode: str | None = None
    #: the row of the store's steering inbox that offered this message to the turn that
    #: ran when it arrived: its worker settles it first (taken: that turn's answer)
    steer_offer: str = ""
    #: the row that asked the turn running when this `interrupt` message arrived to
    #: stop: the message's turn removes it once it ran
    interrupt_offer: str = ""


@dataclass
class SteerOffer:
    """Offer `message` to the running turn of `session_key` (no `key`), or withdraw
    the offer `key`; with `interrupt` (a turn id), ask that turn, if it holds the
    session, to stop instead."""

    session_key: str
    message: str = ""
    key: str = ""
    interrupt: str = ""


@dataclass
class SessionWorkflowInput:
    session_key: str
    #: turns accepted by an earlier run of this workflow and not yet run (continue-as-new)
    pending: list[TurnRequest] = field(default_factory=list)
    #: turns this workflow chain has run (across continue-as-new)
    turns_run: int = 0
    #: `cluster.heartbeatSeconds` of the front that started it
    heartbeat_seconds: float = 2.0
    #: the task queue of the worker whose native runtime holds this session's thread
    #: (None: any worker); the turn activity reports it
    bound_queue: str | None = None
    #: how long a turn waits on its bound worker's queue before it moves to any worker
    #: (`cluster.rebindSeconds`)
    rebind_seconds: float = 10.0
    #: turns per workflow run before continue-as-new (keeps the history bounded)
    turns_per_run: int = 100
    #: a workflow with no turn queued or running for this long (up to twice it) completes
    idle_seconds: float = 600.0


#: what `TURN_ACTIVITY` returns for a `spilled` turn it had no free slot for (its room
#: was taken meanwhile): nothing ran, and the turn goes to the shared queue
SPILL_REFUSED = ""


@dataclass
class LocalTurn:
    """What `LOCAL_TURN_ACTIVITY` did: `ran` False means the worker had no free slot and
    ran nothing, and `spill_to` is then the own queue of a worker that said it has room
    (None: any worker's); `bound_queue` as `TURN_ACTIVITY` returns it."""

    ran: bool
    bound_queue: str | None = None
    spill_to: str | None = None


@dataclass
class TurnFailure:
    turn_id: str
    session_key: str
    error: str
