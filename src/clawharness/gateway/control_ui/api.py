"""`/ui/api/...`: what the Control UI reads besides the WebSocket protocol.

- `GET /ui/api/status`: `Host.status()` as `clawharness status --json` has it: the
  effective runtime per agent and model with the selection reason, plugins and
  harnesses, load warnings and the doctor findings status carries;
- `GET /ui/api/search?q=...[&session=KEY]`: transcript search (`Host.search`);
- `GET /ui/api/sessions/{key}/turns`: a session's turn records, newest first;
- `GET /ui/api/turns/{run_id}`: one turn's record (the turn inspector).

Bearer auth and scopes as the HTTP API (`operator.read`); errors in the same shape.
"""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from clawharness.gateway.host_port import status_report
from clawharness.gateway.openai_http.auth import authorize
from clawharness.gateway.openai_http.context import HttpApi
from clawharness.gateway.openai_http.errors import OpenAiHttpError

__all__ = ["search", "status", "turn", "turns"]

MAX_QUERY_CHARS = 500


def _store(api: HttpApi) -> Any:
    store = getattr(api.host, "store", None)
    if store is None:
        raise OpenAiHttpError(404, "this host keeps no turn records", code="not_found")
    return store


async def status(api: HttpApi, request: Request) -> Response:
    authorize(api.settings, request.headers, "status")
    report = await status_report(api.host)
    return JSONResponse({"status": report})


async def search(api: HttpApi, request: Request) -> Response:
    authorize(api.settings, request.headers, "sessions.list")
    query = request.query_params.get("q", "").strip()
    if not query:
        raise OpenAiHttpError(400, "search needs a query: ?q=words", param="q")
    if len(query) > MAX_QUERY_CHARS:
        raise OpenAiHttpError(400, f"the query is longer than {MAX_QUERY_CHARS} characters",
                              param="q")
    session = request.query_params.get("session") or None
    host_search = getattr(api.host, "search", None)
    if not callable(host_search):
        return JSONResponse({"hits": []})
    hits = await host_search(query, session_key=session, limit=50)
    return JSONResponse({"hits": [{"session_key": h.session_key, "session_id": h.session_id,
                                   "seq": h.seq, "role": h.role, "text": h.text}
                                  for h in hits]})


async def turns(api: HttpApi, request: Request) -> Response:
    authorize(api.settings, request.headers, "chat.history")
    key = request.path_params["key"]
    records = await _store(api).list_turn_records(key, limit=100)
    summary = [{k: r.get(k) for k in ("run_id", "started_at", "duration_ms", "terminal",
                                      "runtime", "error")} | {
                   "tool_calls": len(r.get("tool_calls") or [])} for r in records]
    return JSONResponse({"session_key": key, "turns": summary})


async def turn(api: HttpApi, request: Request) -> Response:
    authorize(api.settings, request.headers, "chat.history")
    run_id = request.path_params["run_id"]
    record = await _store(api).get_turn_record(run_id)
    if record is None:
        raise OpenAiHttpError(404, f"no turn record for run {run_id!r}", code="not_found")
    return JSONResponse(record)
