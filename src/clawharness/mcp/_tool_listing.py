"""The tools of one MCP server, listed within bounds (see `clawharness.mcp.connection`):
`tools/list` page by page through the SDK, or raw and tool by tool when the SDK refuses
a listing because one tool in it is malformed; each cut or left-out tool is a warning
naming the server."""

from __future__ import annotations

from typing import Any, Final

import mcp.types as mcp_types
from mcp import ClientSession
from mcp.shared.inbound import MCP_PROTOCOL_VERSION_HEADER
from mcp.shared.jsonrpc_dispatcher import JSONRPCDispatcher
from pydantic import ValidationError

from clawharness.mcp.catalog import McpServerTool

__all__ = ["MAX_TOOLS", "MAX_TOOLS_PER_PAGE", "MAX_TOOL_PAGES", "ToolListing", "read_pages",
           "read_pages_leniently"]

#: the most tools kept of one server: a listing stops there (with a warning), so memory
#: and the model's tool list stay bounded whatever a server sends
MAX_TOOLS: Final = 1_000
#: the most tools kept of one page of `tools/list` (the rest of that page is dropped)
MAX_TOOLS_PER_PAGE: Final = 500
#: the most pages one listing asks for (a server that never stops paging is cut off)
MAX_TOOL_PAGES: Final = 50


class ToolListing:
    """The tools of one `tools/list` walk, within `MAX_TOOLS_PER_PAGE`, `MAX_TOOLS` and
    `MAX_TOOL_PAGES`; each cut is a warning naming the server."""

    def __init__(self, server: str, warnings: list[str]) -> None:
        self.server = server
        self.warnings = warnings
        self._tools: list[McpServerTool] = []
        self._names: set[str] = set()
        self._pages = 0
        self._cursors: set[str] = set()
        self._full = False

    def add_page(self, page: list[McpServerTool]) -> None:
        self._pages += 1
        if len(page) > MAX_TOOLS_PER_PAGE:
            self.warnings.append(
                f"MCP server {self.server!r}: a page of its tool list held more than "
                f"{MAX_TOOLS_PER_PAGE:,} tools; only the first {MAX_TOOLS_PER_PAGE:,} were "
                "kept")
            page = page[:MAX_TOOLS_PER_PAGE]
        # a name listed again (a repeated page) is the tool already kept
        page = [t for t in page if t.name not in self._names]
        room = MAX_TOOLS - len(self._tools)
        if len(page) > room:
            self.warnings.append(
                f"MCP server {self.server!r} lists more than {MAX_TOOLS:,} tools; only the "
                f"first {MAX_TOOLS:,} are offered")
            self._full = True
        self._tools.extend(page[:room])
        self._names.update(t.name for t in page[:room])

    def next(self, cursor: str | None) -> str | None:
        """The cursor to ask for next, or None when the walk ends."""
        if not cursor or self._full:
            return None
        if cursor in self._cursors:
            self.warnings.append(f"MCP server {self.server!r} repeated a cursor of its tool "
                                  "list; the listing stops there")
            return None
        if self._pages >= MAX_TOOL_PAGES:
            self.warnings.append(f"MCP server {self.server!r} lists its tools in more than "
                                  f"{MAX_TOOL_PAGES} pages; the listing stops there")
            return None
        self._cursors.add(cursor)
        return cursor

    def tools(self) -> tuple[McpServerTool, ...]:
        return tuple(self._tools)



async def read_pages(session: ClientSession, listing: ToolListing
                     ) -> tuple[McpServerTool, ...]:
    """Every page of `tools/list` through the SDK, into `listing`."""
    cursor: str | None = None
    while True:
        params = mcp_types.PaginatedRequestParams(cursor=cursor) if cursor else None
        page = await session.list_tools(params=params)
        listing.add_page([McpServerTool(t.name, t.description or "", t.input_schema,
                                        t.output_schema) for t in page.tools])
        cursor = listing.next(page.next_cursor)
        if cursor is None:
            return listing.tools()


async def read_pages_leniently(dispatcher: JSONRPCDispatcher[Any], protocol_version: str,
                               listing: ToolListing) -> tuple[McpServerTool, ...]:
    """Every page of `tools/list` read raw, tool by tool: a tool the SDK would refuse
    is left out with a warning naming it, the others are kept."""
    headers = {MCP_PROTOCOL_VERSION_HEADER: protocol_version}
    cursor: str | None = None
    while True:
        raw = await dispatcher.send_raw_request(
            "tools/list", {"cursor": cursor} if cursor else None,
            {"headers": dict(headers)})
        listed = raw.get("tools")
        page: list[McpServerTool] = []
        for item in listed if isinstance(listed, list) else []:
            try:
                tool = mcp_types.Tool.model_validate(item)
            except ValidationError as exc:
                name = item.get("name") if isinstance(item, dict) else None
                first = exc.errors()[0]
                where = ".".join(map(str, first["loc"]))
                listing.warnings.append(
                    f"MCP server {listing.server!r}: tool {name!r} left out: its "
                    f"definition is invalid ({where}: {first['msg']})")
                continue
            page.append(McpServerTool(tool.name, tool.description or "",
                                      tool.input_schema, tool.output_schema))
            if len(page) > MAX_TOOLS_PER_PAGE:
                break  # the rest of the page is not even validated
        listing.add_page(page)
        next_cursor = raw.get("nextCursor")
        cursor = listing.next(next_cursor if isinstance(next_cursor, str) else None)
        if cursor is None:
            return listing.tools()
