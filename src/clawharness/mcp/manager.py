"""`McpManager`: the host's MCP client side (`host.mcp`).

Owns one `McpConnection` per enabled `mcp.servers.<name>` (each started on first use,
shared by every turn, closed with the host), the catalog of their tools under
model-facing names, and the `ToolSpec`s a turn of the built-in runtime is offered: only
the tools the agent's tool policy allows, each calling its server when the model calls it.
A server that cannot be reached leaves its tools out of that turn (with a warning), never
the turn.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from clawharness.config.schema import McpConfig
from clawharness.errors import McpConnectError, McpServerNotFoundError
from clawharness.harness.capabilities import ToolPolicyCheck, check_tool_names
from clawharness.harness.mcp_servers import McpServerLaunch
from clawharness.harness.tool_spec import ToolCallContext, ToolSpec
from clawharness.mcp.catalog import McpCatalogEntry, McpServerTool, build_catalog
from clawharness.mcp.specs import McpServerSpec, launch_of, server_specs

if TYPE_CHECKING:
    from clawharness.mcp.connection import McpConnection, ServerInfo

__all__ = ["McpManager", "McpProbe"]

_log = logging.getLogger("clawharness.mcp")


@dataclass(frozen=True, slots=True)
class McpProbe:
    """What `mcp probe` found: the server, its inventory, and how long each step took."""

    server: str
    info: ServerInfo
    tools: tuple[McpServerTool, ...]
    resources: tuple[str, ...] | None
    prompts: tuple[str, ...] | None
    #: step -> milliseconds: connect (start, initialize, first tools/list), tools,
    #: resources, prompts
    timings_ms: Mapping[str, float]

    def to_json(self) -> dict[str, Any]:
        return {"server": self.server, "ok": True,
                "serverInfo": {"name": self.info.name, "version": self.info.version,
                               "protocolVersion": self.info.protocol_version},
                "capabilities": dict(self.info.capabilities),
                "tools": [t.name for t in self.tools],
                "resources": None if self.resources is None else list(self.resources),
                "prompts": None if self.prompts is None else list(self.prompts),
                "timingsMs": {k: round(v, 2) for k, v in self.timings_ms.items()}}


class McpManager:
    """Connections, catalog and tool specs for the configured MCP servers."""

    def __init__(self, config: McpConfig, env: Mapping[str, str]) -> None:
        self.specs: tuple[McpServerSpec, ...] = server_specs(config)
        self._by_name = {spec.name: spec for spec in self.specs}
        self._env = env
        self._connections: dict[str, McpConnection] = {}
        self._catalog: tuple[McpCatalogEntry, ...] | None = None
        self._catalog_key: tuple[int, ...] = ()
        self._warned: set[str] = set()
        self._catalog_lock = asyncio.Lock()
        #: warnings of the last catalog build (left-out tools, renamed tools, down servers)
        self.warnings: tuple[str, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.specs)

    def spec(self, name: str) -> McpServerSpec:
        spec = self._by_name.get(name)
        if spec is None:
            known = ", ".join(self._by_name) or "none"
            raise McpServerNotFoundError(
                f"no enabled MCP server {name!r} (configured: {known})", server=name,
                hint="add it under mcp.servers, or set its enabled to true")
        return spec

    def connection(self, name: str) -> McpConnection:
        """The one connection to `name` (not started until used)."""
        spec = self.spec(name)
        conn = self._connections.get(name)
        if conn is None:
            # the MCP SDK is imported with the first connection, not with the host
            from clawharness.mcp.connection import McpConnection

            conn = McpConnection(spec, self._env, on_tools_changed=self._invalidate)
            self._connections[name] = conn
        return conn

    def _invalidate(self) -> None:
        self._catalog = None

    async def close(self) -> None:
        """Close every session and end every server process."""
        connections, self._connections = list(self._connections.values()), {}
        await asyncio.gather(*(c.close() for c in connections), return_exceptions=True)
        self._catalog = None

    def launches(self) -> tuple[McpServerLaunch, ...]:
        """The enabled servers as a native runtime starts them (one whose `${ENV}` secret
        is not set is left out, with a warning)."""
        out: list[McpServerLaunch] = []
        for spec in self.specs:
            try:
                out.append(launch_of(spec, self._env))
            except McpConnectError as exc:
                _log.warning("MCP server %r is not offered: %s", spec.name, exc)
        return tuple(out)

    # --- inspection (the `mcp` commands) ----------------------------------------------

    async def probe(self, name: str) -> McpProbe:
        """Connect to `name` and list its tools, resources and prompts, timing each."""
        conn = self.connection(name)
        timings: dict[str, float] = {}
        started = time.perf_counter()
        await conn.session()
        timings["connect"] = (time.perf_counter() - started) * 1000
        assert conn.info is not None
        info = conn.info
        step = time.perf_counter()
        conn.refresh_tools()
        tools = await conn.tools()
        timings["tools"] = (time.perf_counter() - step) * 1000
        resources: tuple[str, ...] | None = None
        if "resources" in info.capabilities:
            step = time.perf_counter()
            resources = tuple(str(r.uri) for r in await conn.list_resources())
            timings["resources"] = (time.perf_counter() - step) * 1000
        prompts: tuple[str, ...] | None = None
        if "prompts" in info.capabilities:
            step = time.perf_counter()
            prompts = tuple(p.name for p in await conn.list_prompts())
            timings["prompts"] = (time.perf_counter() - step) * 1000
        return McpProbe(name, info, tools, resources, prompts, timings)

    async def server_catalog(self, name: str) -> tuple[tuple[McpCatalogEntry, ...],
                                                          tuple[str, ...]]:
        """`(entries, warnings)` for one server's offered tools, named as turns see them."""
        spec = self.spec(name)
        await self.connection(name).tools()  # a server that cannot answer says why
        entries = await self.catalog()
        return (tuple(e for e in entries if e.server == spec.name),
                tuple(w for w in self.warnings if f"{spec.name!r}" in w))

    # --- the catalog ----------------------------------------------------------------

    async def catalog(self) -> tuple[McpCatalogEntry, ...]:
        """Every enabled server's offered tools (servers started as needed, in parallel)."""
        async with self._catalog_lock:
            conns = [self.connection(spec.name) for spec in self.specs]
            key = tuple(c.starts for c in conns)
            if self._catalog is not None and key == self._catalog_key and all(
                    c.alive for c in conns):
                return self._catalog
            listed = await asyncio.gather(*(c.tools() for c in conns), return_exceptions=True)
            servers = []
            warnings: list[str] = []
            for conn, tools in zip(conns, listed, strict=True):
                if isinstance(tools, BaseException):
                    if not isinstance(tools, Exception):
                        raise tools
                    warnings.append(f"MCP server {conn.spec.name!r} is unavailable: {tools}")
                    continue
                servers.append((conn.spec, tools))
                warnings.extend(conn.listing_warnings)
            entries, notes = build_catalog(servers)
            self.warnings = (*warnings, *notes)
            if len(self._warned) > 256:  # bounded: a changing warning is logged again
                self._warned.clear()
            for warning in self.warnings:
                if warning not in self._warned:
                    self._warned.add(warning)
                    _log.warning("%s", warning)
            down = len(servers) < len(conns)
            self._catalog = None if down else entries
            self._catalog_key = tuple(c.starts for c in conns)
            return entries

    async def tool_specs(self, policy: ToolPolicyCheck) -> tuple[ToolSpec, ...]:
        """The MCP tools `policy` allows, as the built-in runtime offers them."""
        if not self.specs:
            return ()
        return tuple(self._tool_spec(entry) for entry in await self.catalog()
                     if check_tool_names(policy, (entry.model_name, *entry.policy_names))
                     is None)

    def policy_spellings(self) -> dict[str, tuple[str, ...]]:
        """Each catalogued tool's names for tool policy (offered name first), from the last
        catalog built: what a refusal of an MCP tool the policy left out is judged by."""
        return {e.model_name: (e.model_name, *e.policy_names) for e in self._catalog or ()
                if e.policy_names}

    def _tool_spec(self, entry: McpCatalogEntry) -> ToolSpec:
        conn = self.connection(entry.server)
        # with the connection's: the result mapping reads the MCP SDK's types
        from clawharness.mcp.results import map_call_result

        limit = conn.spec.max_result_chars

        async def execute(arguments: Mapping[str, Any], _ctx: ToolCallContext) -> dict[str, Any]:
            result = await conn.call_tool(entry.tool, arguments)
            return map_call_result(result, server=entry.server, tool=entry.tool,
                                   max_chars=limit)

        return ToolSpec(entry.model_name, entry.description, entry.parameters, execute,
                        owner=f"mcp:{entry.server}", policy_names=entry.policy_names)
