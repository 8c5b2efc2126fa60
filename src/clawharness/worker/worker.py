"""`ClusterWorker`: the start-up checks, then a Temporal worker running turns.

A worker refuses to start, saying why, against a store other processes cannot share
(SQLite) or a Temporal server older than `MIN_SERVER_VERSION`; a cluster it cannot
reach is `ClusterUnreachableError` naming the URL. It polls the shared task queue for
workflow tasks and turns, and a queue of its own (`worker_queue`) for the turns of the
native sessions bound to it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING

from temporalio.client import Client
from temporalio.worker import Worker

from clawharness.cluster.connect import check_server_version, connect_cluster, server_version
from clawharness.cluster.events import TurnEventRelay
from clawharness.cluster.members import check_shared_store, new_worker_id
from clawharness.cluster.messages import worker_queue
from clawharness.names.urls import parse_cluster_url
from clawharness.worker.activities import TurnActivities
from clawharness.worker.runner import sandboxed_runner
from clawharness.worker.workflow import SessionWorkflow

if TYPE_CHECKING:
    from clawharness.host import Host

__all__ = ["ClusterWorker", "worker_queue"]


#: how long a starting worker waits for the server to list it as a poller
READY_SECONDS = 10.0


class ClusterWorker:
    """Runs turns for the cluster at `url` with `host` (an in-process host)."""

    def __init__(self, host: Host, url: str, *, worker_id: str | None = None,
                 max_concurrent_turns: int | None = None) -> None:
        self.host = host
        self.address = parse_cluster_url(url)
        self.settings = host.config.cluster
        self.worker_id = worker_id or new_worker_id()
        self.max_concurrent_turns = max_concurrent_turns or self.settings.max_concurrent_turns

    @property
    def own_queue(self) -> str:
        return worker_queue(self.settings.task_queue, self.worker_id)

    async def _until_seen(self, client: Client) -> None:
        """Wait (bounded) until the server lists this worker among the queue's pollers,
        so "ready" means a front can see it."""
        from clawharness.cluster.client import queue_pollers

        loop = asyncio.get_running_loop()
        deadline = loop.time() + READY_SECONDS
        while self.worker_id not in await queue_pollers(
                client, self.settings.namespace, self.settings.task_queue, self.address.url):
            if loop.time() >= deadline:
                return  # it polls; the server is slow to say so
            await asyncio.sleep(0.1)

    async def run(self, *, on_ready: Callable[[ClusterWorker], None] | None = None,
                  stop: asyncio.Event | None = None) -> None:
        """Check, connect, then run until `stop` is set (or forever)."""
        check_shared_store(self.host.store_url)
        client = await connect_cluster(self.address, namespace=self.settings.namespace,
                                       identity=f"clawharness-worker {self.worker_id}",
                                       transport=self.host.cluster_transport())
        check_server_version(self.address.url, await server_version(client))
        await self.host.start()
        self.host.preload_model_transports()  # before ready: the first turn imports nothing
        relay = TurnEventRelay(self.host.store_url)
        await relay.open()
        await relay.listen()  # for the aborts of the turns it runs
        activities = TurnActivities(
            self.host, relay, heartbeat_seconds=self.settings.heartbeat_seconds,
            worker_id=self.worker_id, task_queue=self.settings.task_queue,
            max_concurrent_turns=self.max_concurrent_turns)
        relay.on_room(activities.board.heard)
        shared = Worker(client, task_queue=self.settings.task_queue,
                        workflows=[SessionWorkflow], activities=activities.all(),
                        workflow_runner=sandboxed_runner(client.data_converter),
                        max_concurrent_activities=self.max_concurrent_turns,
                        # every local turn running or waiting for a slot here (one per
                        # workflow task, of which the SDK runs 100 at once)
                        max_concurrent_local_activities=self.max_concurrent_turns + 100,
                        identity=self.worker_id)
        own = Worker(client, task_queue=self.own_queue, activities=activities.all(),
                     max_concurrent_activities=self.max_concurrent_turns,
                     identity=self.worker_id)
        try:
            async with shared, own:
                await self._until_seen(client)
                # ready means the other workers know it has room, and may send turns
                await activities.announce.now(activities.slots.free)
                if on_ready is not None:
                    on_ready(self)
                await (stop or asyncio.Event()).wait()
                await activities.announce.close(0)  # stopping: send nothing more here
        finally:
            await activities.announce.close()
            await relay.close()
