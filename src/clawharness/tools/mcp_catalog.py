"""Native MCP inventory: the `McpToolCatalog` shape and the host side of `load_mcp_tool_catalog`.

A harness that owns MCP connections outside the host's own MCP runtime may implement
`load_mcp_tool_catalog(params)`; read-only control surfaces (a tool access view) use
it. It must answer from an already-bound native process and thread, and return None
when no live catalog exists; it never starts a process to answer. The host:

- asks only when the harness has the capability and the session has a live binding,
- bounds the answer to `mcp_server_names` (servers the host configured and whose
  session policy the harness may represent),
- keeps raw server/tool names and assigns collision-safe server names,
- keeps tools hidden only by a session denial in `session_denied_tools`.

Final tool policy and schema checks stay with the caller.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from clawharness.names.mcp_names import assign_mcp_catalog_safe_server_names

__all__ = [
    "McpCatalogParams",
    "McpCatalogTool",
    "McpServerCatalog",
    "McpToolCatalog",
    "bound_mcp_catalog",
    "load_native_mcp_catalog",
]


@dataclass(frozen=True, slots=True)
class McpServerCatalog:
    """One configured MCP server as the native runtime sees it."""

    server_name: str
    safe_server_name: str
    launch_summary: str = ""
    tool_count: int = 0
    extra: Mapping[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        """The wire shape control surfaces show (camelCase, as the native runtimes send it)."""
        return {**self.extra, "serverName": self.server_name,
                "safeServerName": self.safe_server_name,
                "launchSummary": self.launch_summary, "toolCount": self.tool_count}


@dataclass(frozen=True, slots=True)
class McpCatalogTool:
    """One MCP tool, raw names kept, with its server's safe name."""

    server_name: str
    safe_server_name: str
    tool_name: str
    input_schema: Mapping[str, Any] = field(default_factory=lambda: {"type": "object"})
    title: str | None = None
    description: str | None = None
    fallback_description: str = ""
    denied_by_session: bool = False
    extra: Mapping[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        """The wire shape, absent optionals omitted."""
        out: dict[str, Any] = {**self.extra, "serverName": self.server_name,
                               "safeServerName": self.safe_server_name,
                               "toolName": self.tool_name, "inputSchema": dict(self.input_schema),
                               "fallbackDescription": self.fallback_description}
        if self.title is not None:
            out["title"] = self.title
        if self.description is not None:
            out["description"] = self.description
        if self.denied_by_session:
            out["deniedBySession"] = True
        return out


@dataclass(frozen=True, slots=True)
class McpToolCatalog:
    """`McpToolCatalog`: servers by raw name, visible tools, and session-denied tools."""

    version: int
    generated_at: float
    servers: Mapping[str, McpServerCatalog]
    tools: tuple[McpCatalogTool, ...]
    session_denied_tools: tuple[McpCatalogTool, ...] = ()
    diagnostics: tuple[Mapping[str, Any], ...] = ()

    def to_json(self) -> dict[str, Any]:
        """The wire shape (`generatedAt` in epoch milliseconds)."""
        out: dict[str, Any] = {
            "version": self.version,
            "generatedAt": int(self.generated_at * 1000),
            "servers": {name: server.to_json() for name, server in self.servers.items()},
            "tools": [tool.to_json() for tool in self.tools],
        }
        if self.session_denied_tools:
            out["sessionDeniedTools"] = [tool.to_json() for tool in self.session_denied_tools]
        if self.diagnostics:
            out["diagnostics"] = [dict(d) for d in self.diagnostics]
        return out


@dataclass(frozen=True, slots=True)
class McpCatalogParams:
    """What `load_mcp_tool_catalog` receives: authoritative identity and bounds."""

    agent_id: str
    session_id: str
    session_key: str
    workspace_dir: str
    mcp_server_names: tuple[str, ...]
    config: Mapping[str, Any] = field(default_factory=dict)
    #: sparse session overrides, e.g. {"mcpToolsDeny": {"server": ["tool"]}}
    tool_overrides: Mapping[str, Any] | None = None
    assert_current: Callable[[], None] | None = None


# --- reading a harness's answer -------------------------------------------------------

_SERVER_KEYS = frozenset({"serverName", "safeServerName", "launchSummary", "toolCount"})
_TOOL_KEYS = frozenset({"serverName", "safeServerName", "toolName", "inputSchema", "title",
                        "description", "fallbackDescription", "deniedBySession"})


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _tool(raw: Any, safe_names: Mapping[str, str], denied: bool) -> McpCatalogTool | None:
    if isinstance(raw, McpCatalogTool):
        if raw.server_name not in safe_names:
            return None
        return McpCatalogTool(raw.server_name, safe_names[raw.server_name], raw.tool_name,
                              raw.input_schema, raw.title, raw.description,
                              raw.fallback_description, denied or raw.denied_by_session, raw.extra)
    if not isinstance(raw, Mapping):
        return None
    server = _text(raw.get("serverName"))
    name = _text(raw.get("toolName"))
    if server is None or name is None or server not in safe_names:
        return None
    schema = raw.get("inputSchema")
    return McpCatalogTool(
        server_name=server,
        safe_server_name=safe_names[server],
        tool_name=name,
        input_schema=schema if isinstance(schema, Mapping) else {"type": "object"},
        title=_text(raw.get("title")),
        description=_text(raw.get("description")),
        fallback_description=_text(raw.get("fallbackDescription")) or f"{server} MCP tool {name}",
        denied_by_session=denied or raw.get("deniedBySession") is True,
        extra={k: v for k, v in raw.items() if isinstance(k, str) and k not in _TOOL_KEYS},
    )


def _server_entries(raw_servers: Any) -> dict[str, Any]:
    if isinstance(raw_servers, Mapping):
        return {str(k): v for k, v in raw_servers.items()}
    return {}


@dataclass(frozen=True, slots=True)
class _RawCatalog:
    servers: dict[str, Any]
    tools: tuple[Any, ...]
    denied: tuple[Any, ...]
    version: int
    generated_at: float
    diagnostics: tuple[Mapping[str, Any], ...]


def _read_catalog(raw: Any) -> _RawCatalog | None:
    if isinstance(raw, McpToolCatalog):
        return _RawCatalog(dict(raw.servers), raw.tools, raw.session_denied_tools, raw.version,
                           raw.generated_at, raw.diagnostics)
    if not isinstance(raw, Mapping):
        return None
    tools = raw.get("tools")
    denied = raw.get("sessionDeniedTools")
    version = raw.get("version")
    stamp = raw.get("generatedAt")
    diag = raw.get("diagnostics")
    return _RawCatalog(
        servers=_server_entries(raw.get("servers")),
        tools=tuple(tools) if isinstance(tools, list) else (),
        denied=tuple(denied) if isinstance(denied, list) else (),
        version=version if isinstance(version, int) else 1,
        generated_at=stamp / 1000 if isinstance(stamp, int | float) else time.time(),
        diagnostics=tuple(d for d in diag if isinstance(d, Mapping)) if isinstance(diag, list)
        else (),
    )


def _server_of(tool: Any) -> str | None:
    if isinstance(tool, McpCatalogTool):
        return tool.server_name
    return _text(tool.get("serverName")) if isinstance(tool, Mapping) else None


def bound_mcp_catalog(raw: Any, mcp_server_names: Sequence[str]) -> McpToolCatalog | None:
    """Normalise a harness's catalog to the allowed servers, with host-assigned safe names.

    Safe names are assigned over the allowed servers the harness reported, in the
    host's declaration order (`mcp_server_names`), so a server keeps the safe name the
    host gives it elsewhere, whatever names or order the harness sent.
    """
    catalog = _read_catalog(raw)
    if catalog is None:
        return None
    named = set(catalog.servers) | {
        server for server in map(_server_of, (*catalog.tools, *catalog.denied)) if server
    }
    reported = [name for name in dict.fromkeys(mcp_server_names) if name in named]
    safe_names: dict[str, str] = dict(assign_mcp_catalog_safe_server_names(reported))
    tools = [t for t in (_tool(r, safe_names, False) for r in catalog.tools) if t is not None]
    denied = [t for t in (_tool(r, safe_names, True) for r in catalog.denied) if t is not None]
    # a tool reported as visible but flagged denied belongs with the denied ones
    denied.extend(t for t in tools if t.denied_by_session)
    tools = [t for t in tools if not t.denied_by_session]
    servers: dict[str, McpServerCatalog] = {}
    for name in reported:
        entry = catalog.servers.get(name)
        record = entry.to_json() if isinstance(entry, McpServerCatalog) else entry
        fields = record if isinstance(record, Mapping) else {}
        servers[name] = McpServerCatalog(
            server_name=name, safe_server_name=safe_names[name],
            launch_summary=_text(fields.get("launchSummary")) or "",
            tool_count=sum(1 for t in (*tools, *denied) if t.server_name == name),
            extra={k: v for k, v in fields.items() if isinstance(k, str) and k not in _SERVER_KEYS},
        )
    return McpToolCatalog(catalog.version, catalog.generated_at, servers, tuple(tools),
                          tuple(denied), catalog.diagnostics)


async def load_native_mcp_catalog(
    harness: Any,
    params: McpCatalogParams,
    *,
    is_bound: Callable[[], bool] | None = None,
    timeout: float | None = 10.0,
) -> McpToolCatalog | None:
    """The live native MCP inventory, or None when there is none to show.

    Returns None without calling the harness when it lacks the capability, when no
    servers are in bounds, or when `is_bound()` says the session has no live native
    binding: inventory is never a reason to start a harness process.
    """
    loader = getattr(harness, "load_mcp_tool_catalog", None)
    if not callable(loader) or not params.mcp_server_names:
        return None
    if is_bound is not None and not is_bound():
        return None
    if params.assert_current is not None:
        params.assert_current()
    async with asyncio.timeout(timeout):
        raw = await loader(params)
    if params.assert_current is not None:
        params.assert_current()
    return bound_mcp_catalog(raw, params.mcp_server_names)
