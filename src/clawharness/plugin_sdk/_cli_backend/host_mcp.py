"""The host's tools a native runtime lacks (`sessions_spawn`, ...), offered to it as an
MCP server the host serves in-process, over the runtime's own control channel, for one
turn (`HostToolServer`).

Claude Code takes an MCP server of `type: "sdk"` in `--mcp-config`: it sends that
server's JSON-RPC messages as `mcp_message` control requests on its stdout and reads
the answers on its stdin, the channel the harness already owns. No port, no extra
process, no secret: only the host's harness reads that channel.

Scope: one server per turn (`CliTurn`), closed when the turn ends, so a message read
after that is refused; a `tools/call` must also name (in `_meta["claudecode/toolUseId"]`,
as Claude Code does) a tool use of the turn that serves it, so a call a previous turn
left behind is refused by the next one. Policy: only the tools the turn's policy lets
the runtime see are listed (`bind_tool_surface`), and every call runs through the SDK's
`ToolCalls.run_host_tool`, the same policy, approval, ledger and record as a host tool
on the built-in runtime (a name that is not offered is refused there too).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any, Final

from clawharness.harness.tool_spec import ToolSpec
from clawharness.plugin_sdk._tool_calls import ToolCallOutcome, ToolCallRequest

__all__ = ["HostToolServer", "host_tools_for", "native_tool_name"]

#: the MCP protocol version answered when the client names none
_PROTOCOL_VERSION: Final = "2025-06-18"
#: the `_meta` key under which Claude Code names the tool use an MCP call serves
_TOOL_USE_META: Final = "claudecode/toolUseId"

RunHostTool = Callable[[ToolCallRequest], Awaitable[ToolCallOutcome]]


def native_tool_name(server: str, tool: str) -> str:
    """How a runtime names tool `tool` of MCP server `server` (Claude Code's spelling)."""
    return f"mcp__{server}__{tool}"


def host_tools_for(tools: Sequence[ToolSpec], native: Sequence[str]) -> tuple[ToolSpec, ...]:
    """The host tools a runtime lacks: `tools` (the turn's host tools) less those whose
    name is one of `native` (the canonical names of the runtime's own tools) or that the
    caller runs."""
    have = set(native)
    return tuple(t for t in tools if t.name not in have and not t.executed_by_caller)


class HostToolServer:
    """One turn's MCP server of host tools: `handle(message)` answers one JSON-RPC
    message (None for a notification); `close()` ends it, after which every request is
    refused."""

    def __init__(self, name: str, tools: Sequence[ToolSpec], run: RunHostTool, *,
                 is_turn_call: Callable[[str], bool], version: str = "0") -> None:
        self.name = name
        self._tools = {t.name: t for t in tools}
        self._run = run
        self._is_turn_call = is_turn_call
        self._version = version
        self._closed = False
        self._calls = 0

    @property
    def tool_names(self) -> tuple[str, ...]:
        """The offered tools' names."""
        return tuple(self._tools)

    @property
    def closed(self) -> bool:
        return self._closed

    def close(self) -> None:
        """The turn ended: nothing more is answered."""
        self._closed = True

    async def handle(self, message: Mapping[str, Any]) -> dict[str, Any] | None:
        """The JSON-RPC answer to `message`, or None when it is a notification."""
        method = message.get("method")
        msg_id = message.get("id")
        if msg_id is None:
            return None  # notifications (initialized, cancelled, ...) need no answer
        if self._closed:
            return _error(msg_id, -32000, "the turn this host tool server served has ended")
        raw = message.get("params")
        params: Mapping[str, Any] = raw if isinstance(raw, Mapping) else {}
        if method == "initialize":
            version = params.get("protocolVersion")
            return _result(msg_id, {
                "protocolVersion": version if isinstance(version, str) else _PROTOCOL_VERSION,
                "capabilities": {"tools": {}},
                "serverInfo": {"name": self.name, "version": self._version}})
        if method == "ping":
            return _result(msg_id, {})
        if method == "tools/list":
            return _result(msg_id, {"tools": [
                {"name": t.name, "description": t.description,
                 "inputSchema": dict(t.parameters) or {"type": "object"}}
                for t in self._tools.values()]})
        if method == "tools/call":
            return _result(msg_id, await self._call(params))
        return _error(msg_id, -32601, f"method not found: {method}")

    async def _call(self, params: Mapping[str, Any]) -> dict[str, Any]:
        name = str(params.get("name", ""))
        raw = params.get("arguments")
        arguments: Mapping[str, Any] = raw if isinstance(raw, Mapping) else {}
        meta = params.get("_meta")
        call_id = meta.get(_TOOL_USE_META) if isinstance(meta, Mapping) else None
        if isinstance(call_id, str) and call_id:
            if not self._is_turn_call(call_id):
                return _refused(f"Tool {name!r} was not run: the call {call_id!r} is not "
                                "one of this turn's")
        else:
            self._calls += 1
            call_id = f"{self.name}-call-{self._calls}"
        if name not in self._tools:
            return _refused(f"Tool {name!r} is not available in this session: the host "
                            "does not offer it to this turn.")
        outcome = await self._run(ToolCallRequest(call_id, name, arguments))
        return {"content": _mcp_content(outcome.content), "isError": outcome.is_error}


def _mcp_content(content: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    for block in content:
        if block.get("type") == "text":
            items.append({"type": "text", "text": str(block.get("text", ""))})
        elif block.get("type") == "image" and block.get("data"):
            items.append({"type": "image", "data": block["data"],
                          "mimeType": block.get("mimeType", "image/png")})
    return items or [{"type": "text", "text": ""}]


def _refused(text: str) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": text}], "isError": True}


def _result(msg_id: Any, result: Mapping[str, Any]) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": msg_id, "result": dict(result)}


def _error(msg_id: Any, code: int, message: str) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": msg_id, "error": {"code": code, "message": message}}
