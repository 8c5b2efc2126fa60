"""Identifiers for sessions and runs.

They must be unique, not secret (lease tokens, which are, use `secrets`). A PRNG seeded
once from the OS avoids a `getrandom` system call per id: on a busy event loop each such
call can hand the GIL to the store's writer thread and stall the loop.
"""

from __future__ import annotations

import os
import random

__all__ = ["new_id"]

_rng = random.Random(os.urandom(32))


#: the bits `uuid.UUID(int=..., version=4)` clears, and those it sets (variant RFC 4122,
#: version 4)
_CLEAR = ~((0xC000 << 48) | (0xF000 << 64))
_SET = (0x8000 << 48) | (4 << 76)


def new_id() -> str:
    """A random version-4 UUID string: `str(uuid.UUID(int=bits, version=4))`, made here
    without the `UUID` object (two per turn; its checks cost more than the rest)."""
    h = "%032x" % ((_rng.getrandbits(128) & _CLEAR) | _SET)
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


def _reseed_after_fork() -> None:
    _rng.seed(os.urandom(32))


os.register_at_fork(after_in_child=_reseed_after_fork)
