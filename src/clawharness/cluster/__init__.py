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
