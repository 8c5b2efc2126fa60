"""One gateway request as a method handler sees it, and the handler type.

Its own module so that the method tables and the server both import it, and the server
imports the tables without either reaching back.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final

from clawharness.gateway.protocol import response_frame

if TYPE_CHECKING:
    from clawharness.gateway.connection import Connection
    from clawharness.gateway.server import GatewayServer

__all__ = ["NO_RESPONSE", "Handler", "RequestContext"]

#: a handler's return value meaning "already answered"
NO_RESPONSE: Final = object()


@dataclass(slots=True)
class RequestContext:
    """One authenticated request, as a method handler sees it."""

    server: GatewayServer
    conn: Connection
    req_id: str
    method: str
    params: dict[str, Any]
    raw_params: Any = None
    answered: bool = field(default=False)

    def respond(self, ok: bool, payload: Any = None, error: dict[str, Any] | None = None,
                *, final: bool = True) -> None:
        frame = response_frame(self.req_id, ok, payload, error)
        if not ok and payload is not None:
            frame["payload"] = payload
        self.conn.send(frame)
        if final:
            self.answered = True


Handler = Callable[[RequestContext], Awaitable[Any]]
