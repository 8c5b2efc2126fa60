"""The errors of the services a host runs on: the Temporal cluster (`ClusterError`)
and the store (`StoreError`, its conditional-write conflicts and lost writer
leases). Import them from `clawharness.errors`."""

from __future__ import annotations

from clawharness.errors._root import ClawHarnessError

__all__ = [
    "ClusterError",
    "ClusterNoWorkersError",
    "ClusterRefusedError",
    "ClusterUnreachableError",
    "ConditionalWriteConflict",
    "SessionLeaseLostError",
    "StoreCorruptError",
    "StoreError",
]


class ClusterError(ClawHarnessError):
    code = "cluster_error"


class ClusterUnreachableError(ClusterError):
    """No Temporal cluster answered at the configured URL: the turn fails, it never runs
    in-process behind the cluster's back."""

    code = "cluster_unreachable"


class ClusterNoWorkersError(ClusterError):
    """The cluster answers, but no worker has polled its task queue lately: the turn
    would only wait in the queue, so it fails at once instead."""

    code = "cluster_no_workers"


class ClusterRefusedError(ClusterError):
    """A worker that refuses to start (a SQLite store, an unsupported Temporal server)."""

    code = "cluster_refused"


class StoreError(ClawHarnessError):
    code = "store_error"


class StoreCorruptError(StoreError):
    code = "store_corrupt"


class ConditionalWriteConflict(StoreError):
    code = "conditional_write_conflict"


class SessionLeaseLostError(ConditionalWriteConflict):
    """A write carried a session writer lease that is no longer the session's current one
    (it expired and another writer took the session over, or it was released)."""

    code = "session_lease_lost"
