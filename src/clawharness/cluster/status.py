"""What a front sees of its cluster: reachable or not, the server's version, and the
workers polling the task queue (`clawharness cluster status`, `Host.cluster_status`)."""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from temporalio.api.enums.v1 import TaskQueueType
from temporalio.api.taskqueue.v1 import TaskQueue
from temporalio.api.workflowservice.v1 import DescribeTaskQueueRequest
from temporalio.service import RPCError

from clawharness.cluster.connect import connect_cluster, server_version
from clawharness.errors import ClusterUnreachableError
from clawharness.names.urls import parse_cluster_url

if TYPE_CHECKING:
    from clawharness.cluster.transport import ClusterTransport
    from clawharness.config.schema import ClusterConfig

__all__ = ["ClusterStatus", "ClusterWorkerSeen", "probe_cluster"]


@dataclass(frozen=True, slots=True)
class ClusterWorkerSeen:
    """A worker the server saw polling the shared task queue, `seconds_ago` last."""

    worker_id: str
    seconds_ago: float | None


@dataclass(frozen=True, slots=True)
class ClusterStatus:
    url: str
    namespace: str
    task_queue: str
    #: how the connection is made: `plaintext`, `TLS`, `TLS + API key`, ...
    transport: str
    reachable: bool
    server_version: str | None = None
    workers: tuple[ClusterWorkerSeen, ...] = field(default=())
    #: why the cluster is unreachable (or could not be asked about its queue)
    error: str | None = None

    @property
    def ready(self) -> bool:
        """Turns submitted now would run: the cluster answers and a worker polls."""
        return self.reachable and bool(self.workers)

    def to_json(self) -> dict[str, object]:
        return {"url": self.url, "namespace": self.namespace, "taskQueue": self.task_queue,
                "transport": self.transport, "reachable": self.reachable,
                "ready": self.ready, "serverVersion": self.server_version,
                "workers": [{"workerId": w.worker_id, "secondsAgo": w.seconds_ago}
                            for w in self.workers],
                "error": self.error}


async def probe_cluster(url: str, settings: ClusterConfig,
                        transport: ClusterTransport) -> ClusterStatus:
    """Ask the cluster at `url` how it is; an unreachable one is a status, not an error."""
    address = parse_cluster_url(url)
    base = ClusterStatus(url=address.url, namespace=settings.namespace,
                         task_queue=settings.task_queue, transport=transport.describe(),
                         reachable=False)
    try:
        client = await connect_cluster(address, namespace=settings.namespace,
                                       identity="clawharness-status", transport=transport)
        version = await server_version(client)
    except (ClusterUnreachableError, RPCError) as exc:
        return replace(base, error=str(exc))
    try:
        described = await client.workflow_service.describe_task_queue(
            DescribeTaskQueueRequest(
                namespace=settings.namespace, task_queue=TaskQueue(name=settings.task_queue),
                task_queue_type=TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW))
    except RPCError as exc:
        return replace(base, reachable=True, server_version=version,
                        error=f"task queue {settings.task_queue!r}: {exc}")
    now = time.time()
    workers = tuple(sorted(
        (ClusterWorkerSeen(p.identity, (now - p.last_access_time.ToSeconds())
                           if p.HasField("last_access_time") else None)
         for p in described.pollers), key=lambda w: w.worker_id))
    return replace(base, reachable=True, server_version=version, workers=workers)

