"""Scale-out on Temporal, the front's side: a workflow per session key, a turn as an
activity on a worker.

A front (`Host` with `cluster.url`) signal-with-starts the session's workflow and streams
the turn's events back from the store; the workers (`clawharness.worker`, which run the
turns in a host of their own) and the fronts share what is here. See docs/scale-out.md.

    members.py     who joins: a member's id, the store every member must share
    messages.py    the values that cross Temporal: turn requests, workflow input, names
    events.py      the per-turn event relay in PostgreSQL (LISTEN/NOTIFY)
    questions.py   approvals and user-input questions relayed between worker and front
    results.py     a turn's result on the wire
    transport.py   how a member reaches the cluster (TLS, API key)
    connect.py     connecting, failing closed; the server's version
    status.py      how the cluster is (`clawharness cluster status`)
    client.py      ClusterClient: what a front submits turns through

The cluster URL (`temporal://HOST:PORT`) is a name (`clawharness.names.urls`); the
modules here but `members` import `temporalio` and load when used.

"""

from __future__ import annotations

from typing import TYPE_CHECKING

from clawharness._faces import lazy_face

if TYPE_CHECKING:
    from clawharness.cluster.client import queue_pollers
    from clawharness.cluster.connect import check_server_version, connect_cluster, server_version
    from clawharness.cluster.events import TurnEventRelay, abort_key
    from clawharness.cluster.front import cluster_transport, open_cluster_turns, probe_cluster
    from clawharness.cluster.members import check_shared_store, new_worker_id
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
        worker_queue,
    )
    from clawharness.cluster.questions import RelayedApprovals, RelayedUserInput
    from clawharness.cluster.results import failed_result, result_to_wire, withdrawn_result
    from clawharness.cluster.status import ClusterStatus
    from clawharness.cluster.transport import ClusterTransport

__all__ = [
    "FAILURE_ACTIVITY",
    "LOCAL_TURN_ACTIVITY",
    "SPILL_REFUSED",
    "STEER_OFFER_ACTIVITY",
    "SUBMIT_SIGNAL",
    "TURN_ACTIVITY",
    "WITHDRAWN_ACTIVITY",
    "WITHDRAW_SIGNAL",
    "WORKFLOW_TYPE",
    "ClusterStatus",
    "ClusterTransport",
    "LocalTurn",
    "RelayedApprovals",
    "RelayedUserInput",
    "SessionWorkflowInput",
    "SteerOffer",
    "TurnEventRelay",
    "TurnFailure",
    "TurnRequest",
    "abort_key",
    "check_server_version",
    "check_shared_store",
    "cluster_transport",
    "connect_cluster",
    "failed_result",
    "new_worker_id",
    "open_cluster_turns",
    "probe_cluster",
    "queue_pollers",
    "result_to_wire",
    "server_version",
    "withdrawn_result",
    "worker_queue",
]

__getattr__, __dir__ = lazy_face(__name__, {
    "ClusterStatus": "clawharness.cluster.status",
    "ClusterTransport": "clawharness.cluster.transport",
    "FAILURE_ACTIVITY": "clawharness.cluster.messages",
    "LOCAL_TURN_ACTIVITY": "clawharness.cluster.messages",
    "LocalTurn": "clawharness.cluster.messages",
    "RelayedApprovals": "clawharness.cluster.questions",
    "RelayedUserInput": "clawharness.cluster.questions",
    "SPILL_REFUSED": "clawharness.cluster.messages",
    "STEER_OFFER_ACTIVITY": "clawharness.cluster.messages",
    "SUBMIT_SIGNAL": "clawharness.cluster.messages",
    "SteerOffer": "clawharness.cluster.messages",
    "SessionWorkflowInput": "clawharness.cluster.messages",
    "TURN_ACTIVITY": "clawharness.cluster.messages",
    "TurnEventRelay": "clawharness.cluster.events",
    "TurnFailure": "clawharness.cluster.messages",
    "TurnRequest": "clawharness.cluster.messages",
    "WITHDRAWN_ACTIVITY": "clawharness.cluster.messages",
    "WITHDRAW_SIGNAL": "clawharness.cluster.messages",
    "WORKFLOW_TYPE": "clawharness.cluster.messages",
    "abort_key": "clawharness.cluster.events",
    "check_server_version": "clawharness.cluster.connect",
    "check_shared_store": "clawharness.cluster.members",
    "cluster_transport": "clawharness.cluster.front",
    "connect_cluster": "clawharness.cluster.connect",
    "failed_result": "clawharness.cluster.results",
    "new_worker_id": "clawharness.cluster.members",
    "open_cluster_turns": "clawharness.cluster.front",
    "probe_cluster": "clawharness.cluster.front",
    "queue_pollers": "clawharness.cluster.client",
    "result_to_wire": "clawharness.cluster.results",
    "server_version": "clawharness.cluster.connect",
    "withdrawn_result": "clawharness.cluster.results",
    "worker_queue": "clawharness.cluster.messages",
})
