"""One gateway request as a method handler sees it, the handler type, and `GatewayPort`:
what a handler may use of the gateway.

The method tables and the server both import this module; the server satisfies
`GatewayPort` and imports the tables, and neither reaches back.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Final, Protocol

from clawharness.gateway.approvals import ApprovalBroker
from clawharness.gateway.connection import Connection
from clawharness.gateway.host_port import GatewayHost
from clawharness.gateway.hub import ConnectionHub
from clawharness.gateway.protocol import response_frame
from clawharness.gateway.settings import GatewaySettings
from clawharness.runs import RunService

__all__ = ["NO_RESPONSE", "GatewayPort", "Handler", "RequestContext"]


class GatewayPort(Protocol):
    """What a method handler uses of the gateway (`GatewayServer` is one)."""

    host: GatewayHost
    settings: GatewaySettings
    hub: ConnectionHub
    approvals: ApprovalBroker
    runs: RunService
    started_at: float

    @property
    def port(self) -> int: ...

    def session_changed(self, session_key: str, reason: str, **fields: Any) -> None:
        """Tell `sessions.subscribe` subscribers a session changed."""

#: a handler's return value meaning "already answered"
NO_RESPONSE: Final = object()


@dataclass(slots=True)
class RequestContext:
    """One authenticated request, as a method handler sees it."""

    server: GatewayPort
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
