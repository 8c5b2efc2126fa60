"""What every endpoint handler gets (`HttpApi`): the host as the gateway sees it, the
gateway's settings, the run service, the keyed requests' records and the HTTP front; and
request helpers.

The server composes it; nothing here reaches the WebSocket server object.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any

from starlette.requests import Request

from clawharness.errors import ClawHarnessError, InputLimitError
from clawharness.gateway.host_port import GatewayHost
from clawharness.gateway.http_front import HttpFront
from clawharness.gateway.openai_http.auth import bearer_token
from clawharness.gateway.openai_http.client_tools import HOST_TOOLS_HEADER
from clawharness.gateway.openai_http.errors import OpenAiHttpError
from clawharness.gateway.openai_http.idempotency import (
    RequestIdentity,
    RequestLedger,
    idempotency_key,
    request_identity,
)
from clawharness.gateway.openai_http.memory import SessionMemory
from clawharness.gateway.openai_http.routing import AGENT_HEADER, SESSION_HEADER, resolve_agent
from clawharness.gateway.openai_http.turns import RunKeeper
from clawharness.gateway.settings import GatewaySettings
from clawharness.limits import loads_bounded
from clawharness.runs import RunService
from clawharness.sessions.keys import parse_session_key

__all__ = ["HttpApi", "is_json_media_type", "read_json_body"]


@dataclass(slots=True)
class HttpApi:
    """The HTTP side's view of the gateway: what its endpoints read and start runs on."""

    host: GatewayHost
    settings: GatewaySettings
    runs: RunService
    front: HttpFront | None = None
    #: what outlives each request's connection (answers, keyed records, the sessions
    #: of responses and client tool calls), over the host's store once it is started
    _keeper: RunKeeper | None = None

    def keeper(self) -> RunKeeper:
        """The run keeper, made on first use (the host is started by then)."""
        if self._keeper is None:
            try:
                store = getattr(self.host, "store", None)
            except ClawHarnessError:  # not started
                store = None
            self._keeper = RunKeeper(SessionMemory(store),
                                     None if store is None else RequestLedger(store),
                                     self.host.history)
        return self._keeper

    def caller(self, request: Request) -> str:
        """The credential a request presented (what its records are kept under)."""
        return bearer_token(request.headers) or ""

    def budget_caller(self, request: Request, body: dict[str, Any]) -> str | None:
        """Whose budgets (`budgets.perCaller`, `budgets.callers.<name>`) a request's turn
        falls under: the request's `user` when it names one, else its credential (as
        `token:` and the start of its SHA-256); None without either."""
        user = body.get("user")
        if isinstance(user, str) and user.strip():
            return user.strip()[:128]
        token = bearer_token(request.headers)
        if not token:
            return None
        return "token:" + hashlib.sha256(token.encode()).hexdigest()[:12]

    def identity(self, request: Request, body: dict[str, Any]) -> RequestIdentity | None:
        """The request's Idempotency-Key identity (None without the header): scoped to
        the credential it presented and the endpoint, fingerprinted by what it asks."""
        key = idempotency_key(request.headers)
        if key is None:
            return None
        return request_identity(
            key, caller=self.caller(request), endpoint=request.url.path, body=body,
            routing={name: request.headers.get(name)
                     for name in (AGENT_HEADER, SESSION_HEADER, HOST_TOOLS_HEADER)})

    async def drain(self) -> None:
        """Store the answers of runs that ended (the gateway is stopping)."""
        if self._keeper is not None:
            await self._keeper.drain()

    def agent_ids(self) -> list[str]:
        default = self.host.default_agent_id()
        entries = self.host.config.agents.entries
        return [default, *(a for a in entries if a != default)]

    def agent_for(self, request: Request, model: Any) -> str:
        if model is not None and not isinstance(model, str):
            raise OpenAiHttpError(400, "`model` must be a string", param="model")
        return resolve_agent(model, request.headers.get(AGENT_HEADER), self.agent_ids(),
                             self.host.default_agent_id())

    def agent_of_session(self, session_key: str) -> str:
        """The agent a session key belongs to (a key named by header may name another)."""
        agent_id = parse_session_key(session_key).agent_id
        if agent_id not in self.agent_ids():
            raise OpenAiHttpError(404, f"unknown agent {agent_id!r} (from the session key "
                                  f"{session_key!r})", code="agent_not_found")
        return agent_id

    def drop_client(self, request: Request) -> None:
        if self.front is not None:
            self.front.abort_client(request.scope.get("client"))


def is_json_media_type(content_type: str | None) -> bool:
    """`application/json` or `application/<x>+json`, parameters aside (not `text/plain;
    json`, nor a missing Content-Type)."""
    if content_type is None:
        return False
    essence = content_type.split(";", 1)[0].strip().lower()
    return essence == "application/json" or (
        essence.startswith("application/") and essence.endswith("+json"))


async def read_json_body(request: Request, limit: int) -> dict[str, Any]:
    """The request's JSON object, read up to `limit` bytes; OpenAiHttpError otherwise."""
    too_large = OpenAiHttpError(413, f"request body is larger than this endpoint's limit of "
                                f"{limit} bytes (gateway.http.endpoints.*.maxBodyBytes)",
                                code="request_too_large")
    content_type = request.headers.get("content-type")
    if not is_json_media_type(content_type):
        # a page of another origin can send text/plain or a form without asking first;
        # application/json it cannot (docs/security.md, gateway origin rules)
        got = "none" if content_type is None else repr(content_type[:80])
        raise OpenAiHttpError(415, f"expected a JSON body sent as Content-Type: "
                              f"application/json, got {got}", code="unsupported_media_type")
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > limit:
        raise too_large
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > limit:
            raise too_large
    if not body.strip():
        raise OpenAiHttpError(400, "request body is empty: expected a JSON object",
                              code="invalid_json")
    try:
        parsed = loads_bounded(bytes(body), what="the request body", max_size=limit)
    except InputLimitError as exc:
        raise OpenAiHttpError(400, str(exc), code="invalid_json") from None
    except (json.JSONDecodeError, UnicodeDecodeError, ValueError) as exc:
        where = (f" at line {exc.lineno} column {exc.colno}"
                 if isinstance(exc, json.JSONDecodeError) else "")
        reason = exc.msg if isinstance(exc, json.JSONDecodeError) else str(exc)
        raise OpenAiHttpError(400, f"malformed JSON in the request body{where}: {reason}",
                              code="invalid_json") from None
    if not isinstance(parsed, dict):
        raise OpenAiHttpError(400, f"the request body must be a JSON object, got "
                              f"{type(parsed).__name__}", code="invalid_json")
    return parsed
