"""Who joins a cluster: a front's or worker's id, and the store every member must share.

No Temporal import: a front checks these before it reaches the cluster.
"""

from __future__ import annotations

import os
import secrets
import socket

from clawharness.errors import ClusterRefusedError
from clawharness.names import display_store_url

__all__ = ["check_shared_store", "new_worker_id"]


def new_worker_id() -> str:
    return f"{socket.gethostname()}-{os.getpid()}-{secrets.token_hex(3)}"


def check_shared_store(store_url: str, role: str = "worker") -> None:
    """Refuse a store the cluster's other processes cannot share."""
    if not store_url.startswith(("postgresql://", "postgres://")):
        raise ClusterRefusedError(
            f"a cluster {role} needs the PostgreSQL store every front and worker shares; this "
            f"host's store is {display_store_url(store_url)!r} (SQLite, one machine's file): "
            "set store.url to postgresql://...")


