"""Gateway methods that report on the host: health, status, agents, commands, models,
approvals, and the truthful empty answers for features this host does not have.

The session and turn methods (`agent`, `chat.*`, `sessions.*`) are in `methods_sessions`,
`sessions.adopt` and `sessions.handoff` in `methods_portable`.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import socket
import sys
import time
from typing import Any

from clawharness.gateway import methods_portable, methods_sessions
from clawharness.gateway.host_port import context_tokens, default_model, status_report
from clawharness.gateway.protocol import GatewayError
from clawharness.gateway.request import GatewayPort, Handler, RequestContext

__all__ = ["default_methods", "health_snapshot"]


def _now_ms() -> int:
    return int(time.time() * 1000)


def _agent_ids(server: GatewayPort) -> list[str]:
    config = server.host.config
    default = server.host.default_agent_id()
    ids = [default, *(a for a in config.agents.entries if a != default)]
    return list(dict.fromkeys(ids))


def health_snapshot(server: GatewayPort) -> dict[str, Any]:
    """The `health` payload (also `hello-ok.snapshot.health`)."""
    started = time.perf_counter()
    return {"ok": True, "ts": _now_ms(),
            "durationMs": int((time.perf_counter() - started) * 1000),
            "defaultAgentId": server.host.default_agent_id()}


async def _health(ctx: RequestContext) -> Any:
    return health_snapshot(ctx.server)


_TASK_STATUSES = ("queued", "running", "succeeded", "failed", "timed_out", "cancelled", "lost")
_TASK_RUNTIMES = ("subagent", "acp", "cli", "cron")
_AUDIT_CODES = ("stale_queued", "stale_running", "lost", "delivery_failed", "missing_cleanup",
                "inconsistent_timestamps")


def _session_summary(server: GatewayPort, record: Any, now: int) -> dict[str, Any]:
    updated = int(record.updated_at * 1000)
    return {"agentId": record.agent_id, "key": record.key, "kind": "direct",
            "sessionId": record.session_id, "updatedAt": updated, "age": max(0, now - updated),
            "model": record.model_ref, "runtime": record.agent_harness_id,
            "totalTokens": None, "totalTokensFresh": False, "remainingTokens": None,
            "percentUsed": None, "contextTokens": context_tokens(server.host, record.model_ref),
            "flags": []}


async def _status(ctx: RequestContext) -> Any:
    """The original's status summary (what `openclaw status --json` reads), plus the
    effective runtime per agent/model under `agentRuntimes`."""
    server = ctx.server
    sensitive = "operator.admin" in ctx.conn.scopes
    now = _now_ms()
    agent_ids = _agent_ids(server)
    default = server.host.default_agent_id()
    records = await server.host.list_sessions()
    records.sort(key=lambda r: r.updated_at, reverse=True)
    store_path = str(server.host.state_dir)
    by_agent = []
    for agent_id in agent_ids:
        mine = [r for r in records if r.agent_id == agent_id]
        by_agent.append({"agentId": agent_id, "path": store_path if sensitive else "[redacted]",
                         "count": len(mine),
                         "recent": [_session_summary(server, r, now) for r in mine[:10]]
                         if sensitive else []})
    config = server.host.config
    default_ref = default_model(server.host)
    payload: dict[str, Any] = {
        "runtimeVersion": server.settings.version,
        "heartbeat": {"defaultAgentId": default, "agents": [
            {"agentId": a, "enabled": False, "every": "disabled", "everyMs": None,
             "waitingForRoute": False} for a in agent_ids]},
        "channelSummary": [],
        "queuedSystemEvents": [],
        "degradedSecretOwners": [],
        "degradedPlugins": [],
        "tasks": {"total": 0, "active": 0, "terminal": 0, "failures": 0,
                  "byStatus": dict.fromkeys(_TASK_STATUSES, 0),
                  "byRuntime": dict.fromkeys(_TASK_RUNTIMES, 0)},
        "taskAudit": {"total": 0, "warnings": 0, "errors": 0,
                      "byCode": dict.fromkeys(_AUDIT_CODES, 0)},
        "sessions": {
            "paths": [store_path] if sensitive else [],
            "count": len(records),
            "defaults": {"model": default_ref,
                         "contextTokens": context_tokens(server.host, default_ref)},
            "recent": [_session_summary(server, r, now) for r in records[:10]] if sensitive else [],
            "byAgent": by_agent,
        },
        "agentRuntimes": await status_report(server.host),
        "activeRuns": [{"runId": r.run_id, "sessionKey": r.session_key}
                       for r in server.runs.active_runs()],
        "gateway": {"port": server.port, "bind": server.settings.host,
                    "authMode": server.settings.auth_mode, "connections": len(server.hub)},
        "uptimeMs": int((time.monotonic() - server.started_at) * 1000),
        "pid": os.getpid(),
    }
    if ctx.params.get("includeCliProjection") is True:
        payload["cliProjection"] = {
            "agents": {"defaultId": default,
                       "ownership": "sole" if len(agent_ids) == 1 else "legacy",
                       "selectionRequired": False,
                       "rows": [{"id": a, **({"name": config.agents.entries[a].name}
                                            if a in config.agents.entries
                                            and config.agents.entries[a].name else {})}
                                for a in agent_ids]},
            "updateChannel": None,
            "memoryPlugin": {"enabled": False, "slot": None,
                             "reason": "this host has no memory plugin"},
        }
    return payload


async def _agents_list(ctx: RequestContext) -> Any:
    server = ctx.server
    config = server.host.config
    default = server.host.default_agent_id()
    agents: list[dict[str, Any]] = []
    for agent_id in _agent_ids(server):
        entry = config.agents.entries.get(agent_id)
        row: dict[str, Any] = {"id": agent_id}
        if entry is not None and entry.name:
            row["name"] = entry.name
        primary = default_model(server.host, agent_id)
        if primary:
            row["model"] = {"primary": primary}
        workspace = (entry.workspace if entry else None) or config.agents.defaults.workspace
        if workspace:
            row["workspace"] = workspace
        agents.append(row)
    return {"defaultId": default, "ownership": "sole" if len(agents) == 1 else "legacy",
            "mainKey": "main", "scope": "per-sender", "agents": agents}


_COMMANDS = (
    {"name": "new", "textAliases": ["/new"], "description": "Start a new session.",
     "category": "session", "source": "native", "scope": "text", "acceptsArgs": True},
    {"name": "reset", "textAliases": ["/reset"], "description": "Reset the current session.",
     "category": "session", "source": "native", "scope": "text", "acceptsArgs": True},
)


async def _commands_list(ctx: RequestContext) -> Any:
    return {"commands": [dict(c) for c in _COMMANDS]}


async def _models_list(ctx: RequestContext) -> Any:
    models: list[dict[str, Any]] = []
    for provider_id, provider in ctx.server.host.config.models.providers.items():
        for model in provider.models:
            row: dict[str, Any] = {"id": model.id, "name": model.name or model.id,
                                   "provider": provider_id}
            if model.context_window:
                row["contextWindow"] = model.context_window
            models.append(row)
    return {"models": models}


async def _approval_list(ctx: RequestContext) -> Any:
    return ctx.server.approvals.pending()


async def _approval_resolve(ctx: RequestContext) -> Any:
    approval_id = ctx.params.get("id")
    decision = ctx.params.get("decision")
    if not isinstance(approval_id, str) or not approval_id.strip():
        raise GatewayError("INVALID_REQUEST", "invalid plugin.approval.resolve params: id required")
    if not isinstance(decision, str) or not decision:
        raise GatewayError("INVALID_REQUEST",
                           "invalid plugin.approval.resolve params: decision required")
    resolver = ctx.conn.client_id or ctx.conn.conn_id
    return ctx.server.approvals.resolve(approval_id.strip(), decision, resolved_by=resolver)


_SECRET_KEY = re.compile(r"(?i)(token|password|secret|apikey|api_key|authorization)")
REDACTED = "__OPENCLAW_REDACTED__"


def redact(value: Any) -> Any:
    """A copy of a config tree with secret-looking values replaced."""
    if isinstance(value, dict):
        return {k: (REDACTED if _SECRET_KEY.search(str(k)) and isinstance(v, str) and v
                    else redact(v)) for k, v in value.items()}
    if isinstance(value, list):
        return [redact(v) for v in value]
    return value


async def _config_get(ctx: RequestContext) -> Any:
    """The host's config with secrets redacted (read-only: this host has no config writes)."""
    host = ctx.server.host
    loaded = getattr(host, "loaded", None)
    path = getattr(loaded, "path", None)
    raw = getattr(loaded, "raw", None)
    effective = host.config.model_dump(mode="json", by_alias=True, exclude_none=True)
    source = raw if isinstance(raw, dict) else effective
    digest = hashlib.sha256(json.dumps(source, sort_keys=True, default=str).encode()).hexdigest()
    return {"path": str(path) if path else None, "exists": path is not None, "valid": True,
            "hash": digest, "config": redact(source), "runtimeConfig": redact(effective),
            "issues": [], "warnings": []}


async def _questions(ctx: RequestContext) -> Any:
    return {"questions": []}


async def _task_suggestions(ctx: RequestContext) -> Any:
    return {"suggestions": []}


async def _presence(ctx: RequestContext) -> Any:
    """The gateway's own presence entry (what `openclaw status` looks for)."""
    server = ctx.server
    host = socket.gethostname()
    return [{"host": host, "ip": server.settings.host, "version": server.settings.version,
             "platform": sys.platform, "mode": "gateway", "reason": "self",
             "text": f"Gateway: {host} ({server.settings.host}) · app {server.settings.version}",
             "ts": _now_ms()}]


async def _last_heartbeat(ctx: RequestContext) -> Any:
    return None


def default_methods() -> dict[str, Handler]:
    table: dict[str, Handler] = {
        "health": _health,
        "status": _status,
        "agents.list": _agents_list,
        "commands.list": _commands_list,
        "models.list": _models_list,
        "plugin.approval.list": _approval_list,
        "plugin.approval.resolve": _approval_resolve,
        "config.get": _config_get,
        "question.list": _questions,
        "taskSuggestions.list": _task_suggestions,
        "system-presence": _presence,
        "last-heartbeat": _last_heartbeat,
    }
    table.update(methods_sessions.METHODS)
    table.update(methods_portable.METHODS)
    return table
