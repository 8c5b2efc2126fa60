"""Identifiers for sessions and runs.

They must be unique, not secret (lease tokens, which are, use `secrets`). A PRNG seeded
once from the OS avoids a `getrandom` system call per id: on a busy event loop each such
call can hand the GIL to the store's writer thread and stall the loop.
"""

from __future__ import annotations

import os
import random
import uuid

__all__ = ["new_id"]

_rng = random.Random(os.urandom(32))


def new_id() -> str:
    """A random version-4 UUID string."""
    return str(uuid.UUID(int=_rng.getrandbits(128), version=4))


def _reseed_after_fork() -> None:
    _rng.seed(os.urandom(32))


os.register_at_fork(after_in_child=_reseed_after_fork)
