"""Host authority over a native binding: the host generation, captured and rechecked.

`capture_native_session_generation_authority` reads the host session row once and keeps
its physical session id (generation) and recorded predecessor; `verify()` rereads both
after every wait, so a rotation that happened meanwhile is noticed before a binding is
adopted or reclaimed. A missing host row is an ephemeral session (allowed); a failed
read is treated as superseded: it never authorises a binding.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from clawharness.errors import AgentHarnessSessionSupersededError
from clawharness.store import SessionStore

__all__ = [
    "HostGenerationAuthority",
    "SessionIdentity",
    "capture_native_session_generation_authority",
    "superseded_error",
]


@dataclass(frozen=True, slots=True)
class SessionIdentity:
    """Who owns a binding: an agent's physical session, under an optional stable key."""

    agent_id: str
    session_id: str
    session_key: str | None = None


def superseded_error(session_id: str) -> Exception:
    """The default error for a generation that is no longer current."""
    return AgentHarnessSessionSupersededError(
        f"session generation is no longer current: {session_id}")


class HostGenerationAuthority:
    """The host generation (and predecessor) captured once, rechecked after waits.

    `state` is `current` (the host row names this session id), `ephemeral` (no host row:
    a scoped session with no durable entry) or `superseded` (another generation, or the
    read failed: a failed read never authorises a binding).
    """

    def __init__(self, store: SessionStore, identity: SessionIdentity,
                 state: Literal["current", "ephemeral", "superseded"],
                 previous_session_id: str | None, *,
                 assert_caller: Callable[[], None] | None,
                 superseded_error: Callable[[str], Exception]) -> None:
        self.store = store
        self.identity = identity
        self.state = state
        self.previous_session_id = previous_session_id
        self._assert_caller = assert_caller
        self._superseded_error = superseded_error

    def assert_current(self) -> None:
        """The caller's authority, and not superseded (no store read)."""
        if self._assert_caller is not None:
            self._assert_caller()
        if self.state == "superseded":
            raise self._superseded_error(self.identity.session_id)

    async def verify(self) -> None:
        """Reread the host row: the generation and predecessor must not have moved."""
        self.assert_current()
        if self.state != "current" or not self.identity.session_key:
            return
        try:
            entry = await self.store.get_session(self.identity.session_key)
        except Exception as exc:
            raise self._superseded_error(self.identity.session_id) from exc
        self.assert_current()
        if entry is None or entry.session_id != self.identity.session_id \
                or entry.meta.previous_session_id != self.previous_session_id:
            raise self._superseded_error(self.identity.session_id)


async def capture_native_session_generation_authority(
    store: SessionStore, identity: SessionIdentity, *,
    assert_current: Callable[[], None] | None = None,
    superseded_error: Callable[[str], Exception] = superseded_error,
) -> HostGenerationAuthority:
    """Read the host session row once and keep its generation and predecessor."""
    if assert_current is not None:
        assert_current()
    state: Literal["current", "ephemeral", "superseded"] = "ephemeral"
    previous: str | None = None
    if identity.session_key:
        try:
            entry = await store.get_session(identity.session_key)
        except Exception:
            state = "superseded"
        else:
            if entry is None:
                state = "ephemeral"
            elif entry.session_id == identity.session_id:
                state, previous = "current", entry.meta.previous_session_id
            else:
                state = "superseded"
        if assert_current is not None:
            assert_current()
    return HostGenerationAuthority(store, identity, state, previous,
                                   assert_caller=assert_current,
                                   superseded_error=superseded_error)
