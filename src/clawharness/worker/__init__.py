"""`clawharness worker`: a Temporal worker that runs a cluster's turns in a host of its own.

It sits above `clawharness.host` (each worker runs turns in an in-process `Host`) and
uses the front's side of the cluster (`clawharness.cluster`) for what both share.

    worker.py      ClusterWorker: the start-up checks, then a Temporal worker
    workflow.py    SessionWorkflow: turns of one session, one at a time, in arrival order
    activities.py  the turn activity: heartbeats, runs the turn in the worker's host
    slots.py       how many turns a worker takes at once; newest.py: the newest value only
    runner.py      the sandboxed workflow runner that asks no payload context

"""

from __future__ import annotations

from typing import TYPE_CHECKING

from clawharness._faces import lazy_face

if TYPE_CHECKING:
    from clawharness.worker.worker import ClusterWorker

__all__ = [
    "ClusterWorker",
]

__getattr__, __dir__ = lazy_face(__name__, {
    "ClusterWorker": "clawharness.worker.worker",
})
