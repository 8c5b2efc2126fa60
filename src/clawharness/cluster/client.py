"""`ClusterClient`: how a front's `Host` runs a turn on the cluster.

`run_turn` signal-with-starts the session's workflow with the turn, then follows the
turn's events in the relay until its result: partial replies go to the caller's
`on_partial_reply` as they come. The cluster being unreachable fails the turn at once
(`ClusterUnreachableError` naming the URL); nothing falls back to running in-process.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import logging
from collections import OrderedDict
from datetime import timedelta
from typing import TYPE_CHECKING

from temporalio.api.enums.v1 import TaskQueueType
from temporalio.api.taskqueue.v1 import TaskQueue
from temporalio.api.workflowservice.v1 import DescribeTaskQueueRequest
from temporalio.client import Client
from temporalio.service import RPCError, RPCStatusCode

from clawharness._ids import new_id
from clawharness.cluster.connect import connect_cluster
from clawharness.cluster.events import TurnEventRelay
from clawharness.cluster.messages import (
    SUBMIT_SIGNAL,
    WITHDRAW_SIGNAL,
    WORKFLOW_TYPE,
    SessionWorkflowInput,
    TurnRequest,
    workflow_id_for,
)
from clawharness.cluster.questions import QUESTION_KINDS, answer_question
from clawharness.cluster.results import result_from_wire
from clawharness.errors import (
    ClawHarnessError,
    ClusterNoWorkersError,
    ClusterUnreachableError,
    SessionBusyError,
)
from clawharness.names.urls import parse_cluster_url
from clawharness.observability.spans import (
    TERMINAL,
    cluster_turn_span,
    continued_trace,
    mark_failed,
    trace_carrier,
)
from clawharness.records.turn_result import TurnResult

if TYPE_CHECKING:
    from clawharness.attempt.turn import TurnOptions
    from clawharness.cluster.transport import ClusterTransport
    from clawharness.config.schema import ClusterConfig

__all__ = ["ClusterClient", "queue_pollers"]

log = logging.getLogger("clawharness.cluster.client")

#: how long a seen worker counts as there (a check per turn would cost a round trip)
WORKERS_SEEN_SECONDS = 10.0
#: the longest workflow task timeout Temporal takes
MAX_TASK_TIMEOUT_SECONDS = 120.0
#: how long a front looks for a worker before it fails the turn
NO_WORKERS_GRACE_SECONDS = 3.0
#: session workflows a front remembers as running (it signals those without a start)
RUNNING_REMEMBERED = 10_000


async def queue_pollers(client: Client, namespace: str, queue: str, url: str) -> list[str]:
    """The identities of the workers Temporal saw polling `queue` lately."""
    try:
        described = await client.workflow_service.describe_task_queue(
            DescribeTaskQueueRequest(
                namespace=namespace, task_queue=TaskQueue(name=queue),
                task_queue_type=TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW))
    except RPCError as exc:
        raise ClusterUnreachableError(
            f"the cluster at {url} did not describe task queue {queue!r}: {exc}") from exc
    return [p.identity for p in described.pollers]


def workflow_task_timeout(heartbeat_seconds: float) -> timedelta:
    """A worker running a turn here (a local activity) heartbeats its workflow task; three
    missed beats and the task goes to another worker, as an activity's would."""
    return timedelta(seconds=min(max(3 * heartbeat_seconds, 1.0), MAX_TASK_TIMEOUT_SECONDS))


class ClusterClient:
    def __init__(self, url: str, settings: ClusterConfig, relay: TurnEventRelay, *,
                 front_id: str, transport: ClusterTransport | None = None,
                 queue_wait_seconds: float = 300.0) -> None:
        self.address = parse_cluster_url(url)
        self._settings = settings
        #: how long a turn may wait in its session's queue before it gives up (busy)
        self._queue_wait_seconds = queue_wait_seconds
        self._transport = transport
        self._relay = relay
        self._front_id = front_id
        self._client: Client | None = None
        self._connecting = asyncio.Lock()
        self._workers_seen_at: float | None = None
        #: session workflows this front started or signalled, least recent first
        self._running: OrderedDict[str, None] = OrderedDict()

    @property
    def url(self) -> str:
        return self.address.url

    async def _connected(self) -> Client:
        async with self._connecting:
            if self._client is None:
                self._client = await connect_cluster(
                    self.address, namespace=self._settings.namespace,
                    identity=f"clawharness-front {self._front_id}", transport=self._transport)
            return self._client

    async def start(self) -> None:
        await self._connected()
        await self._relay.listen()

    async def _check_workers(self, client: Client) -> None:
        """Fail closed when no worker polls the task queue (Temporal remembers pollers
        for a few minutes, so a worker restarting meanwhile still counts; a worker that
        just started may take a moment to show, hence the grace)."""
        loop = asyncio.get_running_loop()
        now = loop.time()
        if self._workers_seen_at is not None and now - self._workers_seen_at < WORKERS_SEEN_SECONDS:
            return
        queue = self._settings.task_queue
        deadline = now + NO_WORKERS_GRACE_SECONDS
        while not await queue_pollers(client, self._settings.namespace, queue, self.url):
            if loop.time() >= deadline:
                raise ClusterNoWorkersError(
                    f"no worker polls task queue {queue!r} on the cluster at {self.url}: "
                    "start `clawharness worker` (with the same cluster.taskQueue)")
            await asyncio.sleep(0.2)
        self._workers_seen_at = loop.time()

    async def submit(self, request: TurnRequest) -> None:
        """Queue the turn on its session's workflow, starting the workflow if none runs.

        A session this front has seen running gets a plain signal (about half the
        server's work of a signal-with-start); one whose workflow has since completed
        (idle) answers NOT_FOUND and is started afresh with the turn."""
        client = await self._connected()
        await self._check_workers(client)
        workflow_id = workflow_id_for(self._settings.task_queue, request.session_key)
        if workflow_id in self._running:
            try:
                await client.get_workflow_handle(workflow_id).signal(SUBMIT_SIGNAL, request)
            except RPCError as exc:
                if exc.status != RPCStatusCode.NOT_FOUND:
                    raise ClusterUnreachableError(
                        f"the cluster at {self.url} did not take the turn: {exc}") from exc
                del self._running[workflow_id]  # it completed: start it again below
            else:
                self._running.move_to_end(workflow_id)
                return
        try:
            await client.start_workflow(
                WORKFLOW_TYPE, SessionWorkflowInput(
                    request.session_key, heartbeat_seconds=self._settings.heartbeat_seconds,
                    rebind_seconds=self._settings.rebind_seconds),
                id=workflow_id, task_queue=self._settings.task_queue,
                task_timeout=workflow_task_timeout(self._settings.heartbeat_seconds),
                start_signal=SUBMIT_SIGNAL, start_signal_args=[request])
        except RPCError as exc:
            raise ClusterUnreachableError(
                f"the cluster at {self.url} did not take the turn: {exc}") from exc
        self._running[workflow_id] = None
        if len(self._running) > RUNNING_REMEMBERED:
            self._running.popitem(last=False)

    async def run_turn(self, session_key: str, message: str, opts: TurnOptions) -> TurnResult:
        turn_id = opts.run_id or new_id()
        # a caller's trace (an HTTP request's `traceparent`) goes on through the wait and,
        # by the request's own carrier, into the worker's turn
        with continued_trace(opts.trace_context or {}), cluster_turn_span(
                session_key, turn_id, server=self.address.host,
                port=self.address.port) as span:
            result = await self._run_turn(TurnRequest(
                turn_id=turn_id, session_key=session_key, message=message, model=opts.model,
                max_steps=opts.max_steps, timeout=opts.timeout, front=self._front_id,
                trace=trace_carrier(), approvals=opts.approvals is not None,
                user_input=opts.user_input is not None,
                partials=opts.on_partial_reply is not None,
                abortable=opts.abort is not None, thinking=opts.thinking,
                queue_mode=opts.queue_mode), opts)
            if span.is_recording():
                span.set_attribute(TERMINAL, result.terminal)
                if result.terminal not in ("ok", "aborted"):
                    mark_failed(span, result.error, result.error_type or "turn_failed")
            return result

    async def _run_turn(self, request: TurnRequest, opts: TurnOptions) -> TurnResult:
        turn_id = request.turn_id
        await self._relay.listen()
        arrived = self._relay.subscribe(turn_id)
        submitted = asyncio.Event()
        forwarding = (None if opts.abort is None else
                      asyncio.ensure_future(self._forward_abort(request.session_key, turn_id,
                                                                opts.abort, submitted)))
        queue_wait = (opts.busy_timeout if opts.busy_timeout is not None
                      else self._queue_wait_seconds)
        overdue = asyncio.Event()
        deadline = asyncio.ensure_future(
            self._withdraw_when_overdue(request, queue_wait, submitted, overdue))
        answering: set[asyncio.Task[None]] = set()
        try:
            await self.submit(request)
            submitted.set()
            if self._relay.listening:
                # subscribed before the submit, so the turn's first row wakes this; a read
                # now would only find nothing
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(arrived.wait(), self._relay.poll_seconds)
            after = 0
            while True:
                arrived.clear()
                for event in await self._relay.read(turn_id, after):
                    after = event.id
                    if event.kind == "result":
                        self._relay.discard_soon(turn_id)
                        result = result_from_wire(event.payload)
                        aborted = opts.abort is not None and opts.abort.is_set()
                        if overdue.is_set() and _withdrawn(result) and not aborted:
                            raise SessionBusyError(
                                f"session {request.session_key} is busy on the cluster at "
                                f"{self.url}: the turn waited {queue_wait:g}s in its queue "
                                "behind the session's other turns and never started; gave "
                                "up. Retry when they have finished, or raise "
                                "sessions.writerWaitSeconds to wait longer")
                        return result
                    if event.kind == "partial" and opts.on_partial_reply is not None:
                        shown = opts.on_partial_reply(str(event.payload.get("text", "")))
                        if inspect.isawaitable(shown):
                            await shown
                    elif event.kind in QUESTION_KINDS:
                        # answered beside the loop: partial replies keep flowing meanwhile
                        task = asyncio.ensure_future(
                            answer_question(self._relay, turn_id, event, opts))
                        answering.add(task)
                        task.add_done_callback(answering.discard)
                try:
                    await asyncio.wait_for(arrived.wait(), self._relay.poll_seconds)
                except TimeoutError:
                    pass
        finally:
            self._relay.unsubscribe(turn_id, arrived)
            if forwarding is not None:
                forwarding.cancel()
            deadline.cancel()
            for task in answering:
                task.cancel()

    async def _forward_abort(self, session_key: str, turn_id: str, abort: asyncio.Event,
                             submitted: asyncio.Event) -> None:
        """The caller's abort, to the worker that runs the turn (through the relay);
        the turn's result, `aborted`, still comes back the usual way."""
        await abort.wait()
        try:
            await self._relay.request_abort(turn_id)
        except ClawHarnessError as exc:
            log.warning("turn %s: the abort did not reach the cluster: %s", turn_id, exc)
        # a turn still queued behind others leaves the queue now (its result comes back
        # `aborted` at once); the relay row above covers every other case
        await submitted.wait()  # the withdrawal must reach the workflow after the turn
        await self._withdraw(session_key, turn_id)

    async def _withdraw_when_overdue(self, request: TurnRequest, wait: float,
                                     submitted: asyncio.Event, overdue: asyncio.Event) -> None:
        """A turn still queued after `wait` (`sessions.writerWaitSeconds`, or the caller's
        `busy_timeout`) is withdrawn, as an in-process turn gives up on a busy writer; one
        that started by then runs on (the workflow ignores the withdrawal)."""
        await submitted.wait()
        await asyncio.sleep(wait)
        overdue.set()
        await self._withdraw(request.session_key, request.turn_id)

    async def _withdraw(self, session_key: str, turn_id: str) -> None:
        try:
            client = await self._connected()
            await client.get_workflow_handle(
                workflow_id_for(self._settings.task_queue, session_key)).signal(
                    WITHDRAW_SIGNAL, turn_id)
        except (ClawHarnessError, RPCError) as exc:
            log.info("turn %s: not withdrawn from its queue: %s", turn_id, exc)

    async def close(self) -> None:
        self._client = None


def _withdrawn(result: TurnResult) -> bool:
    return result.cluster is not None and result.cluster.withdrawn
