"""`sessions.adopt`, `sessions.handoff` and `sessions.fork`: portable sessions over the
gateway (docs/portable-sessions.md). clawharness's own methods (the original has none);
adopt and handoff need `operator.admin`, because they read and write files of the
machine the gateway runs on (a session file by path, a runtime's home); fork
`operator.write` (it writes only the store).

    sessions.adopt   {runtime, source, key?, agentId?, model?, home?}
                  -> {ok, sessionKey, sessionId, runtime, nativeSessionId, source, appended,
                      already, created, model, leftOut}
    sessions.handoff {key, runtime, agentId?, cwd?, home?}
                  -> {ok, sessionKey, runtime, nativeSessionId, location, command, cwd, env,
                      shell, carried, leftOut}
    sessions.fork    {key, agentId?, at?, newKey?, model?, runtime?}
                  -> {ok, key, entry, fork: {sessionKey, sessionId, from, copied, model,
                      runtime}}
    sessions.children {key?, agentId?}  (operator.read)
                  -> {ok, children: [{childSessionKey, parentSessionKey, status, ...}]}
    sessions.kill    {key, agentId?}    (operator.write)
                  -> {ok, key, killed: [child, ...]}
    sessions.compact {key, agentId?, focus?}
                  -> {ok, key, compacted, reason?, summary?, summarisedEntries,
                      keptEntries, tokensBefore, tokensAfter, seq?, durationMs}

`sessions.compact` (`operator.write`) summarises the session's oldest history now, as
`/compact` does (docs/compaction.md).

A refused adoption or handoff is `INVALID_REQUEST` with `details.code` the error's code
(`native_session_format`, `native_session_not_found`, `native_session_bound`,
`native_session_unsupported`, `agent_harness_not_registered`, `session_fork`, ...) and
`details.hint`.
"""

from __future__ import annotations

import time
from typing import Any, Final

from clawharness.errors import (
    AgentHarnessNotRegisteredError,
    HarnessError,
    InvalidSessionKeyError,
    ModelRefError,
    NativeSessionError,
    SessionForkError,
    SessionNotFoundError,
    SubagentError,
    UnknownAgentError,
)
from clawharness.gateway.methods_sessions import resolve_session, session_row
from clawharness.gateway.protocol import GatewayError
from clawharness.gateway.request import Handler, RequestContext
from clawharness.store import SubagentRecord
from clawharness.subagents import LOST_AFTER_SECONDS

__all__ = ["METHODS"]

#: what a refusal of these methods is reported as (anything else is the server's fault)
_REFUSALS: Final = (NativeSessionError, AgentHarnessNotRegisteredError, HarnessError,
                    SessionNotFoundError, InvalidSessionKeyError, UnknownAgentError,
                    SessionForkError, ModelRefError, SubagentError)
_FORK_FIELDS: Final = frozenset({"key", "agentId", "at", "newKey", "model", "runtime"})
_COMPACT_FIELDS: Final = frozenset({"key", "agentId", "focus"})


def _text(ctx: RequestContext, name: str, *, required: bool = False) -> str | None:
    value = ctx.params.get(name)
    if value is None or (isinstance(value, str) and not value.strip()):
        if required:
            raise GatewayError("INVALID_REQUEST", f"invalid {ctx.method} params: {name} required")
        return None
    if not isinstance(value, str):
        raise GatewayError("INVALID_REQUEST",
                           f"invalid {ctx.method} params: {name} must be a string")
    return value.strip()


def _refused(ctx: RequestContext, exc: Exception) -> GatewayError:
    details: dict[str, Any] = {"code": getattr(exc, "code", type(exc).__name__)}
    hint = getattr(exc, "hint", None)
    if hint:
        details["hint"] = hint
    return GatewayError("INVALID_REQUEST", f"{ctx.method}: {exc}", details=details)


async def _sessions_adopt(ctx: RequestContext) -> Any:
    server = ctx.server
    runtime = _text(ctx, "runtime", required=True)
    source = _text(ctx, "source", required=True)
    agent_id = _text(ctx, "agentId")
    key = _text(ctx, "key")
    if key is not None:
        key, agent_id = resolve_session(server, key, agent_id)
    assert runtime is not None and source is not None
    try:
        result = await server.host.adopt_session(
            runtime, source, key=key, agent_id=agent_id, model=_text(ctx, "model"),
            home=_text(ctx, "home"))
    except _REFUSALS as exc:
        raise _refused(ctx, exc) from None
    if result.appended:
        server.session_changed(result.session_key, "adopt", sessionId=result.session_id)
    return {"ok": True, **result.to_json()}


async def _sessions_handoff(ctx: RequestContext) -> Any:
    server = ctx.server
    key, _agent = resolve_session(server, _text(ctx, "key", required=True),
                                  _text(ctx, "agentId"))
    runtime = _text(ctx, "runtime", required=True)
    assert runtime is not None
    try:
        handoff = await server.host.handoff_session(key, runtime, home=_text(ctx, "home"),
                                                    cwd=_text(ctx, "cwd"))
    except _REFUSALS as exc:
        raise _refused(ctx, exc) from None
    return {"ok": True, "sessionKey": key, **handoff.to_json()}


async def _sessions_fork(ctx: RequestContext) -> Any:
    unknown = sorted(set(ctx.params) - _FORK_FIELDS)
    if unknown:
        raise GatewayError("INVALID_REQUEST", f"invalid sessions.fork params: unknown "
                           f"field(s) {', '.join(unknown)} (allowed: "
                           f"{', '.join(sorted(_FORK_FIELDS))})")
    server = ctx.server
    at = ctx.params.get("at")
    if isinstance(at, int) and not isinstance(at, bool):
        ctx.params["at"] = str(at)  # a turn number
    key, agent = resolve_session(server, _text(ctx, "key", required=True),
                                 _text(ctx, "agentId"))
    new_key = _text(ctx, "newKey")
    if new_key is not None:
        new_key, _agent = resolve_session(server, new_key, agent)
    try:
        fork = await server.host.fork_session(
            key, at=_text(ctx, "at"), new_key=new_key, model=_text(ctx, "model"),
            runtime=_text(ctx, "runtime"))
    except _REFUSALS as exc:
        raise _refused(ctx, exc) from None
    server.session_changed(fork.session_key, "fork", forkedFrom=key)
    record = await server.host.get_session(fork.session_key)
    return {"ok": True, "key": fork.session_key, "entry": session_row(server, record),
            "fork": fork.to_json()}


async def _sessions_compact(ctx: RequestContext) -> Any:
    unknown = sorted(set(ctx.params) - _COMPACT_FIELDS)
    if unknown:
        raise GatewayError("INVALID_REQUEST", f"invalid sessions.compact params: unknown "
                           f"field(s) {', '.join(unknown)} (allowed: "
                           f"{', '.join(sorted(_COMPACT_FIELDS))})")
    server = ctx.server
    key, _agent = resolve_session(server, _text(ctx, "key", required=True),
                                  _text(ctx, "agentId"))
    try:
        result = await server.host.compact_session(key, focus=_text(ctx, "focus"))
    except _REFUSALS as exc:  # a refused summary is a HarnessError
        raise _refused(ctx, exc) from None
    if result.compacted:
        server.session_changed(key, "compact")
    wire = result.to_wire()
    wire.pop("sessionKey", None)
    return {"ok": True, "key": key, **wire}


def _child(record: SubagentRecord, now: float) -> dict[str, Any]:
    """A sub-agent as `sessions.children` answers it (`clawharness sessions list
    --children --json`'s shape)."""
    return {"childSessionKey": record.child_key, "parentSessionKey": record.parent_key,
            "runId": record.run_id, "agentId": record.agent_id,
            "status": "lost" if record.lost(now, after=LOST_AFTER_SECONDS) else record.status,
            "depth": record.depth, "task": record.task, "label": record.label,
            "context": record.context, "runtime": record.runtime, "model": record.model_ref,
            "createdAt": record.created_at, "endedAt": record.ended_at,
            "result": record.result, "error": record.error, "announced": record.announced}


async def _sessions_children(ctx: RequestContext) -> Any:
    server = ctx.server
    key = _text(ctx, "key")
    parent = resolve_session(server, key, _text(ctx, "agentId"))[0] if key else None
    now = time.time()
    return {"ok": True, "children": [_child(r, now)
                                     for r in await server.host.subagents.children(parent)]}


async def _sessions_kill(ctx: RequestContext) -> Any:
    server = ctx.server
    key, _agent = resolve_session(server, _text(ctx, "key", required=True),
                                  _text(ctx, "agentId"))
    try:
        killed = await server.host.subagents.kill(key, reason="killed over the gateway")
    except _REFUSALS as exc:
        raise _refused(ctx, exc) from None
    now = time.time()
    return {"ok": True, "key": key, "killed": [_child(r, now) for r in killed]}


METHODS: Final[dict[str, Handler]] = {
    "sessions.adopt": _sessions_adopt,
    "sessions.compact": _sessions_compact,
    "sessions.handoff": _sessions_handoff,
    "sessions.fork": _sessions_fork,
    "sessions.children": _sessions_children,
    "sessions.kill": _sessions_kill,
}
