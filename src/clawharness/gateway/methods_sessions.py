"""Turns and sessions over the gateway: `agent`, `chat.*`, `sessions.*`.

`agent` answers twice on the same request id: `{runId, sessionKey, agentId,
status:"accepted", acceptedAt}`, then the final `{runId, status, summary, result:{payloads,
meta}}`. `chat.send` acknowledges `{runId, status:"started"}` and streams the turn as
`agent` and `chat` events. Both de-duplicate on `idempotencyKey` (see `runs`).
"""

from __future__ import annotations

import re
import time
from typing import Any, Final, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from clawharness.errors import ConfigError, InvalidSessionKeyError, SessionNotFoundError
from clawharness.gateway.host_port import context_tokens, default_model, turn_explanation
from clawharness.gateway.protocol import GatewayError, format_validation_error
from clawharness.gateway.request import NO_RESPONSE, GatewayPort, Handler, RequestContext
from clawharness.gateway.runs import accepted_payload, outcome_of, wait_outcome
from clawharness.runs import RunOptions
from clawharness.sessions.agents import known_agent_ids
from clawharness.sessions.keys import parse_session_key
from clawharness.sessions.queue import parse_queue_mode
from clawharness.store import SessionRecord, TranscriptEntry

__all__ = ["METHODS"]

_RESET: Final = re.compile(r"^/(new|reset)(?:\s+([\s\S]*))?$", re.IGNORECASE)
_HISTORY_DEFAULT: Final = 200
_HISTORY_MAX: Final = 1000
_LIST_DEFAULT: Final = 50

M = TypeVar("M", bound=BaseModel)


class _Closed(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)


class AgentParams(_Closed):
    """`agent` params: the original's closed schema (unused fields are accepted)."""

    message: str = Field(min_length=1)
    idempotency_key: str = Field(min_length=1, alias="idempotencyKey")
    agent_id: str | None = Field(default=None, min_length=1, alias="agentId")
    session_key: str | None = Field(default=None, alias="sessionKey")
    session_id: str | None = Field(default=None, alias="sessionId")
    timeout: int | None = Field(default=None, ge=0)
    model: str | None = None
    provider: str | None = None
    to: str | None = None
    reply_to: str | None = Field(default=None, alias="replyTo")
    expected_existing_session_id: str | None = Field(default=None,
                                                     alias="expectedExistingSessionId")
    thinking: str | None = None
    deliver: bool | None = None
    attachments: list[Any] | None = None
    channel: str | None = None
    reply_channel: str | None = Field(default=None, alias="replyChannel")
    account_id: str | None = Field(default=None, alias="accountId")
    reply_account_id: str | None = Field(default=None, alias="replyAccountId")
    thread_id: str | None = Field(default=None, alias="threadId")
    group_id: str | None = Field(default=None, alias="groupId")
    group_channel: str | None = Field(default=None, alias="groupChannel")
    group_space: str | None = Field(default=None, alias="groupSpace")
    best_effort_deliver: bool | None = Field(default=None, alias="bestEffortDeliver")
    lane: str | None = None
    cwd: str | None = None
    extra_system_prompt: str | None = Field(default=None, alias="extraSystemPrompt")
    prompt_mode: str | None = Field(default=None, alias="promptMode")
    label: str | None = None
    input_provenance: Any = Field(default=None, alias="inputProvenance")
    #: what to do if a turn of the session is running (docs/steering.md)
    queue_mode: str | None = Field(default=None, alias="queueMode")
    #: this host's extension for `clawharness agent` (docs/cli.md): the final answer also
    #: carries `turnResult` (what `agent --json` prints) and `explanation`
    include_turn_result: bool | None = Field(default=None, alias="includeTurnResult")


class ChatSendParams(_Closed):
    session_key: str = Field(min_length=1, alias="sessionKey")
    message: str
    idempotency_key: str = Field(min_length=1, alias="idempotencyKey")
    agent_id: str | None = Field(default=None, min_length=1, alias="agentId")
    session_id: str | None = Field(default=None, alias="sessionId")
    thinking: str | None = None
    deliver: bool | None = None
    timeout_ms: int | None = Field(default=None, ge=0, alias="timeoutMs")
    queue_mode: str | None = Field(default=None, alias="queueMode")
    attachments: list[Any] | None = None
    fast_mode: Any = Field(default=None, alias="fastMode")
    reply_to_id: str | None = Field(default=None, alias="replyToId")
    originating_channel: str | None = Field(default=None, alias="originatingChannel")
    originating_to: str | None = Field(default=None, alias="originatingTo")
    expected_leaf_entry_id: Any = Field(default=None, alias="expectedLeafEntryId")


def _thinking(raw: str | None) -> str | None:
    """A request's `thinking` level (aliases as `/think` takes them), or INVALID_REQUEST."""
    if raw is None or not raw.strip():
        return None
    from clawharness.models import ThinkingLevelError, parse_thinking_level

    try:
        return parse_thinking_level(raw)
    except ThinkingLevelError as exc:
        raise GatewayError("INVALID_REQUEST", f"invalid thinking: {exc}") from None


def _queue_mode(ctx: RequestContext, value: str | None) -> str | None:
    """The message's queue mode, checked (`steer`, `followup`, `collect`, `interrupt`)."""
    try:
        return parse_queue_mode(value)
    except ConfigError as exc:
        raise GatewayError("INVALID_REQUEST", f"invalid {ctx.method} params: {exc}") from None


def _params(ctx: RequestContext, model: type[M]) -> M:
    try:
        return model.model_validate(ctx.raw_params if ctx.raw_params is not None else {})
    except ValidationError as exc:
        raise GatewayError("INVALID_REQUEST", f"invalid {ctx.method} params: "
                           f"{format_validation_error(exc)}") from None


def _now_ms() -> int:
    return int(time.time() * 1000)


def _str(ctx: RequestContext, name: str, *, required: bool = False) -> str | None:
    value = ctx.params.get(name)
    if value is None or (isinstance(value, str) and not value.strip()):
        if required:
            raise GatewayError("INVALID_REQUEST", f"invalid {ctx.method} params: {name} required")
        return None
    if not isinstance(value, str):
        raise GatewayError("INVALID_REQUEST",
                           f"invalid {ctx.method} params: {name} must be a string")
    return value.strip()


def _unknown_agent(agent_id: str, session_key: str | None = None) -> GatewayError:
    where = f" (from the session key {session_key})" if session_key else ""
    return GatewayError("INVALID_REQUEST",
                        f'invalid agent params: unknown agent id "{agent_id}"{where}',
                        details={"code": "UNKNOWN_AGENT_ID", "agentId": agent_id})


def resolve_session(server: GatewayPort, session_key: str | None,
                    agent_id: str | None, *, for_turn: bool = False) -> tuple[str, str]:
    """The full session key and its agent from a request's `sessionKey` / `agentId`.

    `for_turn`: the key will run a turn, so its agent must exist too (the rule of
    `clawharness.sessions.agents`; reading or deleting an old session of a removed agent
    stays possible)."""
    known = known_agent_ids(server.host.config)
    if agent_id is not None and agent_id not in known:
        raise _unknown_agent(agent_id)
    try:
        if session_key:
            text = session_key.strip()
            if agent_id and not text.startswith("agent:"):
                text = f"agent:{agent_id}:{text}"
            key = server.host.session_key(text)
        elif agent_id:
            key = server.host.session_key(f"agent:{agent_id}:main")
        else:
            key = server.host.session_key(None)
        parsed = parse_session_key(key)
    except InvalidSessionKeyError as exc:
        raise GatewayError("INVALID_REQUEST", str(exc)) from None
    if agent_id and parsed.agent_id != agent_id:
        raise GatewayError("INVALID_REQUEST",
                           f"session key {key} belongs to agent {parsed.agent_id}, not {agent_id}")
    if for_turn and parsed.agent_id not in known:
        raise _unknown_agent(parsed.agent_id, key)
    return key, parsed.agent_id


def _model_fields(model_ref: str | None) -> dict[str, Any]:
    if not model_ref:
        return {}
    provider, sep, model = model_ref.partition("/")
    return {"modelProvider": provider, "model": model} if sep else {"model": model_ref}


def session_row(server: GatewayPort, record: SessionRecord) -> dict[str, Any]:
    active = [r.run_id for r in server.runs.active_runs(record.key)]
    row: dict[str, Any] = {
        "key": record.key, "sessionId": record.session_id, "agentId": record.agent_id,
        "kind": "direct", "updatedAt": int(record.updated_at * 1000),
        "createdAt": int(record.created_at * 1000), "hasActiveRun": bool(active),
        "activeRunIds": active, "snapshotAt": _now_ms(), **_model_fields(record.model_ref),
    }
    label = record.meta.label
    if label:
        row["label"] = label
    if record.meta.thinking_level:
        row["thinkingLevel"] = record.meta.thinking_level
    if record.agent_harness_id:
        row["agentRuntime"] = {"id": record.agent_harness_id}
    return row


def _defaults(server: GatewayPort, agent_id: str | None = None) -> dict[str, Any]:
    model = default_model(server.host, agent_id)
    return {**_model_fields(model), "contextTokens": context_tokens(server.host, model)}


def _display(entry: TranscriptEntry) -> dict[str, Any]:
    content = entry.content
    message = dict(content) if isinstance(content, dict) else {"role": entry.role,
                                                                "content": content}
    for key in [k for k in message if k.startswith("__")]:
        del message[key]
    message.setdefault("role", entry.role)
    message.setdefault("timestamp", int(entry.created_at * 1000))
    return message


# --- turns ------------------------------------------------------------------------------

async def _reset_and_report(ctx: RequestContext, key: str, reason: str) -> str | None:
    server = ctx.server
    server.runs.abort(key, reason="reset")
    try:
        record = await server.host.reset_session(key, reason=reason)
    except SessionNotFoundError:
        return None
    server.session_changed(key, reason, sessionId=record.session_id,
                           updatedAt=int(record.updated_at * 1000))
    return record.session_id


async def _agent(ctx: RequestContext) -> Any:
    server = ctx.server
    params = _params(ctx, AgentParams)
    key, agent_id = resolve_session(server, params.session_key, params.agent_id, for_turn=True)
    message = params.message
    reset = _RESET.match(message.strip())
    if reset is not None:
        session_id = await _reset_and_report(ctx, key, reset.group(1).lower())
        rest = (reset.group(2) or "").strip()
        if not rest:
            note = "✅ New session started." if reset.group(1).lower() == "new" else (
                "✅ Session reset.")
            meta: dict[str, Any] = {"durationMs": 0}
            if session_id:
                meta["agentMeta"] = {"sessionId": session_id}
            return {"runId": params.idempotency_key, "status": "ok", "summary": "completed",
                    "result": {"payloads": [{"text": note, "isStatusNotice": True}], "meta": meta}}
        message = rest
    run = server.runs.start(key, message, RunOptions(
        agent_id=agent_id, kind="agent", idempotency_key=params.idempotency_key,
        origin=ctx.conn.conn_id, timeout=float(params.timeout) if params.timeout else None,
        queue_mode=_queue_mode(ctx, params.queue_mode), thinking=_thinking(params.thinking)))
    if not run.done:
        ctx.respond(True, accepted_payload(run), final=False)
    ended = await run.wait()
    outcome = outcome_of(run, ended)
    payload = outcome.payload
    if params.include_turn_result and ended.result is not None:
        payload = {**payload, "turnResult": ended.result.to_json(),
                   "explanation": await turn_explanation(server.host, ended.result)}
    ctx.respond(outcome.ok, payload, outcome.error)
    return NO_RESPONSE


async def _agent_wait(ctx: RequestContext) -> Any:
    run_id = _str(ctx, "runId", required=True)
    assert run_id is not None
    run = ctx.server.runs.get(run_id)
    if run is None:
        raise GatewayError("INVALID_REQUEST", f"unknown run id {run_id}")
    timeout_ms = ctx.params.get("timeoutMs")
    try:
        if isinstance(timeout_ms, int) and timeout_ms > 0:
            import asyncio

            async with asyncio.timeout(timeout_ms / 1000):
                outcome = await wait_outcome(run)
        else:
            outcome = await wait_outcome(run)
    except TimeoutError:
        return {"runId": run_id, "status": "timeout"}
    return {"runId": run_id, "status": outcome.payload.get("status", "error"),
            **({"error": outcome.error["message"]} if outcome.error else {})}


async def _chat_send(ctx: RequestContext) -> Any:
    server = ctx.server
    params = _params(ctx, ChatSendParams)
    key, agent_id = resolve_session(server, params.session_key, params.agent_id, for_turn=True)
    message = params.message.strip()
    if not message:
        raise GatewayError("INVALID_REQUEST", "invalid chat.send params: message required")
    reset = _RESET.match(message)
    if reset is not None and not (reset.group(2) or "").strip():
        await _reset_and_report(ctx, key, reset.group(1).lower())
        return {"runId": params.idempotency_key, "status": "ok"}
    if reset is not None:
        await _reset_and_report(ctx, key, reset.group(1).lower())
        message = (reset.group(2) or "").strip()
    known = server.runs.find("chat", params.idempotency_key)
    if known is not None:
        return {"runId": known.run_id, "status": "ok" if known.done else "in_flight"}
    run = server.runs.start(key, message, RunOptions(
        agent_id=agent_id, kind="chat", idempotency_key=params.idempotency_key,
        origin=ctx.conn.conn_id,
        timeout=params.timeout_ms / 1000 if params.timeout_ms else None,
        queue_mode=_queue_mode(ctx, params.queue_mode), thinking=_thinking(params.thinking)))
    return {"runId": run.run_id, "status": "started"}


async def _chat_abort(ctx: RequestContext) -> Any:
    session_key = _str(ctx, "sessionKey") or _str(ctx, "key")
    run_id = _str(ctx, "runId")
    if session_key is None and run_id is None:
        raise GatewayError("INVALID_REQUEST", f"invalid {ctx.method} params: sessionKey required")
    if session_key is None:
        run = ctx.server.runs.get(run_id or "")
        if run is None:
            return {"ok": True, "aborted": False, "runIds": []}
        key = run.session_key
    else:
        key, _agent_id = resolve_session(ctx.server, session_key, _str(ctx, "agentId"))
    aborted = ctx.server.runs.abort(key, run_id)
    return {"ok": True, "aborted": bool(aborted), "runIds": aborted}


async def _chat_history(ctx: RequestContext) -> Any:
    server = ctx.server
    key, agent_id = resolve_session(server, _str(ctx, "sessionKey", required=True),
                                    _str(ctx, "agentId"))
    limit = ctx.params.get("limit")
    last = limit if isinstance(limit, int) and 0 < limit <= _HISTORY_MAX else _HISTORY_DEFAULT
    session_id: str | None = None
    messages: list[dict[str, Any]] = []
    try:
        record = await server.host.get_session(key)
        session_id = record.session_id
        messages = [_display(e) for e in await server.host.history(key, last=last)]
    except SessionNotFoundError:
        record = None
    payload: dict[str, Any] = {"sessionKey": key, "messages": messages,
                               "defaults": _defaults(server, agent_id)}
    if session_id:
        payload["sessionId"] = session_id
    if record is not None:
        payload["sessionInfo"] = session_row(server, record)
    return payload


# --- sessions ---------------------------------------------------------------------------

async def _list_payload(ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
    server = ctx.server
    agent_id = params.get("agentId") if isinstance(params.get("agentId"), str) else None
    records = await server.host.list_sessions(agent_id=agent_id)
    search = params.get("search")
    if isinstance(search, str) and search.strip():
        needle = search.strip().lower()
        records = [r for r in records if needle in r.key.lower()
                   or needle in (r.meta.label or "").lower()]
    if params.get("activeOnly") is True:
        active = {r.session_key for r in server.runs.active_runs()}
        records = [r for r in records if r.key in active]
    records.sort(key=lambda r: r.updated_at, reverse=True)
    offset_raw = params.get("offset")
    offset = max(0, offset_raw) if isinstance(offset_raw, int) else 0
    limit_raw = params.get("limit")
    limit = limit_raw if isinstance(limit_raw, int) and limit_raw > 0 else None
    window = records[offset:offset + limit] if limit is not None else records[offset:]
    next_offset = offset + len(window)
    has_more = next_offset < len(records)
    return {
        "ts": _now_ms(), "path": str(server.host.state_dir), "count": len(window),
        "totalCount": len(records), "limitApplied": limit,
        "nextOffset": next_offset if has_more else None, "hasMore": has_more,
        "defaults": _defaults(server, agent_id),
        "sessions": [session_row(server, r) for r in window],
    }


async def _sessions_list(ctx: RequestContext) -> Any:
    return await _list_payload(ctx, ctx.params)


async def _sessions_subscribe(ctx: RequestContext) -> Any:
    ctx.conn.sessions_subscribed = True
    if ctx.params:
        return {"subscribed": True, "list": await _list_payload(ctx, ctx.params)}
    return {"subscribed": True}


async def _sessions_unsubscribe(ctx: RequestContext) -> Any:
    ctx.conn.sessions_subscribed = False
    return {"subscribed": False}


async def _messages_subscribe(ctx: RequestContext) -> Any:
    key, _agent = resolve_session(ctx.server, _str(ctx, "key", required=True),
                                  _str(ctx, "agentId"))
    ctx.conn.session_keys.add(key)
    return {"subscribed": True, "key": key}


async def _messages_unsubscribe(ctx: RequestContext) -> Any:
    key, _agent = resolve_session(ctx.server, _str(ctx, "key", required=True),
                                  _str(ctx, "agentId"))
    ctx.conn.session_keys.discard(key)
    return {"subscribed": False, "key": key}


async def _sessions_describe(ctx: RequestContext) -> Any:
    key, _agent = resolve_session(ctx.server, _str(ctx, "key", required=True),
                                  _str(ctx, "agentId"))
    try:
        record = await ctx.server.host.get_session(key)
    except SessionNotFoundError:
        return {"session": None}
    return {"session": session_row(ctx.server, record)}


async def _sessions_reset(ctx: RequestContext) -> Any:
    server = ctx.server
    key, _agent = resolve_session(server, _str(ctx, "key", required=True), _str(ctx, "agentId"))
    reason = _str(ctx, "reason") or "reset"
    if reason not in ("new", "reset"):
        raise GatewayError("INVALID_REQUEST", "invalid sessions.reset params: reason must be "
                           "new or reset")
    expected = _str(ctx, "expectedSessionId")
    if expected is not None:
        try:
            current = await server.host.get_session(key)
        except SessionNotFoundError:
            current = None
        if current is None or current.session_id != expected:
            raise GatewayError("INVALID_REQUEST", f"Session {key} changed before reset. Retry.",
                               details={"reason": "session-changed"})
    session_id = await _reset_and_report(ctx, key, reason)
    entry = None
    if session_id is not None:
        entry = session_row(server, await server.host.get_session(key))
    return {"ok": True, "key": key, "entry": entry}


async def _sessions_patch(ctx: RequestContext) -> Any:
    """`sessions.patch {key, thinkingLevel}`: the session's own thinking level (a level, or
    null to go back to the agent's); docs/thinking.md."""
    server = ctx.server
    key, _agent = resolve_session(server, _str(ctx, "key", required=True), _str(ctx, "agentId"))
    if "thinkingLevel" not in ctx.params:
        raise GatewayError("INVALID_REQUEST",
                           "invalid sessions.patch params: thinkingLevel required")
    raw = ctx.params["thinkingLevel"]
    if raw is not None and not isinstance(raw, str):
        raise GatewayError("INVALID_REQUEST",
                           "invalid sessions.patch params: thinkingLevel must be a string or null")
    level = _thinking(raw)
    record = await server.host.ensure_session(key, meta={"thinkingLevel": level})
    server.session_changed(key, "patch")
    return {"ok": True, "key": key, "entry": session_row(server, record)}


async def _sessions_delete(ctx: RequestContext) -> Any:
    server = ctx.server
    key, agent_id = resolve_session(server, _str(ctx, "key", required=True),
                                    _str(ctx, "agentId"))
    if key == f"agent:{agent_id}:main":
        raise GatewayError("INVALID_REQUEST", f"Cannot delete the main session ({key}).")
    if ctx.params.get("archivedOnly") is True:
        return {"ok": True, "key": key, "deleted": False, "archived": False}
    server.runs.abort(key, reason="delete")
    deleted = await server.host.delete_session(key)
    if deleted:
        server.session_changed(key, "delete")
    return {"ok": True, "key": key, "deleted": deleted, "archived": False}


METHODS: Final[dict[str, Handler]] = {
    "agent": _agent,
    "agent.wait": _agent_wait,
    "chat.send": _chat_send,
    "chat.abort": _chat_abort,
    "chat.history": _chat_history,
    "sessions.list": _sessions_list,
    "sessions.subscribe": _sessions_subscribe,
    "sessions.unsubscribe": _sessions_unsubscribe,
    "sessions.messages.subscribe": _messages_subscribe,
    "sessions.messages.unsubscribe": _messages_unsubscribe,
    "sessions.describe": _sessions_describe,
    "sessions.reset": _sessions_reset,
    "sessions.delete": _sessions_delete,
    "sessions.patch": _sessions_patch,
    "sessions.abort": _chat_abort,
}
