"""The set of live connections and who receives which event.

- Run events (`agent`, `chat`) go to the connection that started the run, to every
  connection that called `sessions.subscribe`, and to those subscribed to that session
  with `sessions.messages.subscribe`. Tool events (`agent` with `stream:"tool"`) only
  reach connections that advertised the `tool-events` capability, as in the original.
- `sessions.changed` goes to `sessions.subscribe` subscribers.
- Approval events go to connections holding `operator.approvals` (or admin).
- `tick` goes to every authenticated connection.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from typing import Any, Final

from clawharness.gateway.connection import Connection
from clawharness.gateway.scopes import APPROVALS, READ

__all__ = ["TOOL_EVENTS_CAP", "ConnectionHub"]

TOOL_EVENTS_CAP: Final = "tool-events"


class ConnectionHub:
    """Live connections, by id."""

    def __init__(self) -> None:
        self._conns: dict[str, Connection] = {}
        self._changed: asyncio.Event | None = None

    def add(self, conn: Connection) -> None:
        self._conns[conn.conn_id] = conn
        self._notify()

    def remove(self, conn: Connection) -> None:
        self._conns.pop(conn.conn_id, None)
        self._notify()

    def _notify(self) -> None:
        if self._changed is not None:
            self._changed.set()

    async def wait_for_count(self, count: int) -> None:
        """Return once exactly `count` connections are live (tests, shutdown)."""
        while len(self._conns) != count:
            self._changed = self._changed or asyncio.Event()
            self._changed.clear()
            await self._changed.wait()

    def get(self, conn_id: str | None) -> Connection | None:
        return self._conns.get(conn_id) if conn_id else None

    def __len__(self) -> int:
        return len(self._conns)

    def authenticated(self) -> Iterator[Connection]:
        for conn in list(self._conns.values()):
            if conn.authenticated and conn.is_open:
                yield conn

    def broadcast(self, event: str, payload: Any, *,
                  accept: Callable[[Connection], bool] | None = None) -> int:
        """Send `event` to every authenticated connection `accept` admits; how many."""
        sent = 0
        for conn in self.authenticated():
            if (accept is None or accept(conn)) and conn.send_event(event, payload):
                sent += 1
        return sent

    def publish_run_event(self, event: str, payload: dict[str, Any], *, session_key: str,
                          origin: str | None, tool: bool = False) -> int:
        """A run's `agent`/`chat` event to its audience."""
        sent = 0
        for conn in self.authenticated():
            if not (conn.conn_id == origin or conn.sessions_subscribed
                    or session_key in conn.session_keys):
                continue
            if tool and TOOL_EVENTS_CAP not in conn.caps:
                continue
            if not conn.has_scope(READ):
                continue
            if conn.send_event(event, payload):
                sent += 1
        return sent

    def publish_sessions_changed(self, payload: dict[str, Any]) -> int:
        return self.broadcast("sessions.changed", payload,
                              accept=lambda c: c.sessions_subscribed and c.has_scope(READ))

    def publish_approval(self, event: str, payload: dict[str, Any]) -> int:
        return self.broadcast(event, payload, accept=lambda c: c.has_scope(APPROVALS))

    def has_approvers(self) -> bool:
        return any(c.has_scope(APPROVALS) for c in self.authenticated())
