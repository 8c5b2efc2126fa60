"""Scale-out on Temporal: a workflow per session key, a turn as an activity.

Fronts (`Host` with `cluster.url`) signal-with-start the session's workflow and stream
the turn's events back from the store; workers (`clawharness worker`) run the turns
against the shared PostgreSQL store. See docs/scale-out.md.

    messages.py    the values that cross Temporal: turn requests, workflow input
    workflow.py    SessionWorkflow: turns of one session, one at a time, in arrival order
    events.py      the per-turn event relay in PostgreSQL (LISTEN/NOTIFY)
    activities.py  the turn activity: heartbeats, runs the turn in the worker's host
    worker.py      ClusterWorker: the start-up checks, then a Temporal worker
    client.py      ClusterClient: what a front's Host submits turns through

The cluster URL (`temporal://HOST:PORT`) is a name (`clawharness.names.urls`); the
modules here import `temporalio` and load when used.
"""
