"""Configured MCP servers as a native runtime starts them, and their projection into the
runtimes' own config shapes (pure).

`McpServerLaunch` is a server from `mcp.servers` with its `${ENV}` secrets resolved: the
host passes the enabled ones to a native harness in `AttemptParams.mcp_servers`, and the
harness hands them to its runtime (never prints them: `repr` hides `env` and `headers`).

A server is projected only where the runtime can honour its settings: a runtime that
cannot filter tools gets no server with `tools.include` / `tools.exclude`, and a runtime
without a transport gets no server over it; each left-out server comes back with the
reason, for the harness to warn about. A server's name in a runtime is its sanitized
`safe_name` (`[A-Za-z0-9_-]`), which every runtime accepts.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

__all__ = ["McpServerLaunch", "acp_mcp_servers", "claude_mcp_config", "codex_mcp_servers"]

_GLOB_CHARS = frozenset("*?[")


@dataclass(frozen=True, slots=True)
class McpServerLaunch:
    """One enabled MCP server, secrets resolved, as a native runtime starts it."""

    name: str
    safe_name: str
    transport: Literal["stdio", "streamable-http", "sse"]
    command: str | None = None
    args: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict, repr=False)
    cwd: str | None = None
    url: str | None = None
    headers: Mapping[str, str] = field(default_factory=dict, repr=False)
    connection_timeout: float = 30.0
    tool_timeout: float = 60.0
    include: tuple[str, ...] | None = None
    exclude: tuple[str, ...] = ()

    @property
    def filtered(self) -> bool:
        return self.include is not None or bool(self.exclude)


Projection = tuple[Any, tuple[str, ...]]


def _left_out(server: McpServerLaunch, runtime: str, why: str) -> str:
    return f"MCP server {server.name!r} is not offered to {runtime}: {why}"


def codex_mcp_servers(servers: Sequence[McpServerLaunch]) -> tuple[dict[str, Any],
                                                                   tuple[str, ...]]:
    """`(mcp_servers table for a Codex thread's config, left-out reasons)`.

    Codex runs stdio and Streamable HTTP servers; `tools.include` / `tools.exclude`
    become `enabled_tools` / `disabled_tools` when they name tools exactly (Codex takes
    no globs).
    """
    table: dict[str, Any] = {}
    notes: list[str] = []
    for s in servers:
        globs = [p for p in (*(s.include or ()), *s.exclude) if _GLOB_CHARS & set(p)]
        if globs:
            notes.append(_left_out(s, "Codex", f"its tools filter has globs ({globs[0]!r}), "
                                               "and Codex filters by exact name only"))
            continue
        if s.transport == "sse":
            notes.append(_left_out(s, "Codex", "Codex has no SSE transport"))
            continue
        entry: dict[str, Any] = {"startup_timeout_sec": s.connection_timeout,
                                 "tool_timeout_sec": s.tool_timeout}
        if s.transport == "stdio":
            entry.update(command=s.command, args=list(s.args))
            if s.env:
                entry["env"] = dict(s.env)
            if s.cwd:
                entry["cwd"] = s.cwd
        else:
            entry["url"] = s.url
            if s.headers:
                entry["http_headers"] = dict(s.headers)
        if s.include is not None:
            entry["enabled_tools"] = list(s.include)
        if s.exclude:
            entry["disabled_tools"] = list(s.exclude)
        table[s.safe_name] = entry
    return table, tuple(notes)


def claude_mcp_config(servers: Sequence[McpServerLaunch]) -> tuple[dict[str, Any],
                                                                   tuple[str, ...]]:
    """`({"mcpServers": {...}} for `claude --mcp-config`, left-out reasons)`.

    Servers with a tools filter are left out (the CLI's tool flags would not keep a
    filtered-out tool from the model).
    """
    table: dict[str, Any] = {}
    notes: list[str] = []
    for s in servers:
        if s.filtered:
            notes.append(_left_out(s, "the Claude CLI", "it cannot apply tools.include / "
                                                        "tools.exclude"))
            continue
        if s.transport == "stdio":
            entry: dict[str, Any] = {"type": "stdio", "command": s.command,
                                     "args": list(s.args), "env": dict(s.env)}
        else:
            entry = {"type": "http" if s.transport == "streamable-http" else "sse",
                     "url": s.url, "headers": dict(s.headers)}
        table[s.safe_name] = entry
    return {"mcpServers": table}, tuple(notes)


def acp_mcp_servers(servers: Sequence[McpServerLaunch], *, http: bool, sse: bool
                    ) -> tuple[list[dict[str, Any]], tuple[str, ...]]:
    """`(mcpServers for ACP's session/new and session/load, left-out reasons)`.

    `http` / `sse`: the agent's `mcpCapabilities`; stdio every ACP agent takes. ACP
    carries no tool filter, so a server with one is left out.
    """
    listed: list[dict[str, Any]] = []
    notes: list[str] = []
    for s in servers:
        if s.filtered:
            notes.append(_left_out(s, "the ACP agent", "ACP cannot filter a server's tools"))
            continue
        if s.transport == "stdio":
            listed.append({"name": s.safe_name, "command": s.command, "args": list(s.args),
                           "env": [{"name": k, "value": v} for k, v in s.env.items()]})
            continue
        kind = "http" if s.transport == "streamable-http" else "sse"
        if not (http if kind == "http" else sse):
            notes.append(_left_out(s, "the ACP agent", f"it does not take {kind} MCP servers"))
            continue
        listed.append({"type": kind, "name": s.safe_name, "url": s.url,
                       "headers": [{"name": k, "value": v} for k, v in s.headers.items()]})
    return listed, tuple(notes)
