"""`/ui/api/...`: what the Control UI reads besides the WebSocket protocol.

- `GET /ui/api/status`: `StatusAnswer`, what the Status page shows of `Host.status()`;
- `GET /ui/api/sessions`: `SessionList`, sessions titled by their latest message;
- `GET /ui/api/sessions/{key}/conversation[?run=RUN_ID]`: `ConversationView`, the
  session's turns (only that run's with `run`);
- `GET /ui/api/search?q=...[&session=KEY]`: `SearchAnswer`, transcript search;
- `GET /ui/api/turns/{run_id}`: `TurnRecordView`, one turn's record (the inspector).

Every answer is a model of `schema.py`, serialised by its wire names. Bearer auth and
scopes as the HTTP API (`operator.read`); errors in the same shape.
"""

from __future__ import annotations

from typing import Any, Final

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from clawharness.errors import InvalidSessionKeyError, SessionNotFoundError
from clawharness.gateway.control_ui.schema import (
    SearchAnswer,
    SearchHitView,
    SessionList,
    StatusAnswer,
    StatusView,
    TurnRecordView,
    dump,
)
from clawharness.gateway.control_ui.views import (
    TurnFacts,
    conversation_view,
    facts_from_record,
    facts_from_result,
    session_summary,
    usage_view,
)
from clawharness.gateway.host_port import status_report
from clawharness.gateway.openai_http.auth import authorize
from clawharness.gateway.openai_http.context import HttpApi
from clawharness.gateway.openai_http.errors import OpenAiHttpError
from clawharness.sessions.keys import parse_session_key

__all__ = ["conversation", "search", "sessions", "status", "turn"]

MAX_QUERY_CHARS: Final = 500
#: transcript entries a conversation reads (its newest); older turns are left out
CONVERSATION_ENTRIES: Final = 2000
#: sessions the list shows, and the entries read to title each
SESSION_LIST_LIMIT: Final = 100
TITLE_ENTRIES: Final = 20


def _store(api: HttpApi) -> Any:
    store = getattr(api.host, "store", None)
    if store is None:
        raise OpenAiHttpError(404, "this host keeps no turn records", code="not_found")
    return store


def _answer(model: Any) -> Response:
    return JSONResponse(dump(model))


async def status(api: HttpApi, request: Request) -> Response:
    authorize(api.settings, request.headers, "status")
    report = await status_report(api.host)
    return _answer(StatusAnswer(status=StatusView.model_validate(report)))


async def sessions(api: HttpApi, request: Request) -> Response:
    authorize(api.settings, request.headers, "sessions.list")
    records = await api.host.list_sessions()
    records.sort(key=lambda r: r.updated_at, reverse=True)
    summaries = []
    for record in records[:SESSION_LIST_LIMIT]:
        try:
            recent = await api.host.history(record.key, last=TITLE_ENTRIES)
        except SessionNotFoundError:  # deleted while listing
            continue
        summaries.append(session_summary(record, recent,
                                         active=bool(api.runs.active_runs(record.key))))
    return _answer(SessionList(sessions=summaries, agent_ids=api.agent_ids(),
                               default_agent_id=api.host.default_agent_id()))


def _session_key(api: HttpApi, raw: str) -> str:
    try:
        return api.host.session_key(raw)
    except InvalidSessionKeyError as exc:
        raise OpenAiHttpError(400, str(exc), param="key") from None


async def _facts(api: HttpApi, key: str, run_ids: set[str]) -> dict[str, TurnFacts]:
    """Each run's facts: its result while the run service remembers it, else its
    inspector record (written just after the turn)."""
    facts: dict[str, TurnFacts] = {}
    for run_id in run_ids:
        run = api.runs.get(run_id)
        if run is not None and run.result is not None:
            facts[run_id] = facts_from_result(run.result)
    missing = run_ids - facts.keys()
    store = getattr(api.host, "store", None)
    if missing and store is not None:
        for record in await store.list_turn_records(key, limit=len(run_ids) + 50):
            run_id = record.get("run_id")
            if run_id in missing:
                facts[run_id] = facts_from_record(record)
    return facts


async def conversation(api: HttpApi, request: Request) -> Response:
    authorize(api.settings, request.headers, "chat.history")
    key = _session_key(api, request.path_params["key"])
    only_run = request.query_params.get("run") or None
    agent_id = parse_session_key(key).agent_id
    try:
        record = await api.host.get_session(key)
        entries = await api.host.history(key, last=CONVERSATION_ENTRIES)
    except SessionNotFoundError:
        return _answer(conversation_view(key, None, agent_id, [], {}))
    truncated = len(entries) >= CONVERSATION_ENTRIES
    if only_run is not None:
        entries = [e for e in entries if e.metadata.get("runId") == only_run]
        truncated = False
    run_ids = {r for e in entries if isinstance(r := e.metadata.get("runId"), str)}
    facts = await _facts(api, key, run_ids)
    return _answer(conversation_view(key, record.session_id, agent_id, entries, facts,
                                     truncated=truncated))


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
        return _answer(SearchAnswer(hits=[]))
    hits = await host_search(query, session_key=session, limit=50)
    return _answer(SearchAnswer(hits=[
        SearchHitView(session_key=h.session_key, session_id=h.session_id, seq=h.seq,
                      role=h.role, text=h.text) for h in hits]))


async def turn(api: HttpApi, request: Request) -> Response:
    authorize(api.settings, request.headers, "chat.history")
    run_id = request.path_params["run_id"]
    record = await _store(api).get_turn_record(run_id)
    if record is None:
        raise OpenAiHttpError(404, f"no turn record for run {run_id!r}", code="not_found")
    view = TurnRecordView.model_validate({**record, "usage": None})
    return _answer(view.model_copy(update={"usage": usage_view(record.get("usage"))}))
