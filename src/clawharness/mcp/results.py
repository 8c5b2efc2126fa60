"""An MCP `CallToolResult` as a transcript tool result (pure).

Text stays text; images stay images (`{type: image, data, mimeType}`); an embedded text
resource becomes text headed by its URI, a binary one (and audio, and a resource link) a
one-line note; `structuredContent` is kept in `details` (and shown as JSON when the
server sent no content). `isError` makes the result a failed outcome. Text over the
server's `maxResultChars` is cut, with a note saying so.
"""

from __future__ import annotations

import json
from typing import Any

import mcp.types as mcp_types

__all__ = ["map_call_result"]


def _block(block: Any) -> dict[str, Any]:
    if isinstance(block, mcp_types.TextContent):
        return {"type": "text", "text": block.text}
    if isinstance(block, mcp_types.ImageContent):
        return {"type": "image", "data": block.data, "mimeType": block.mime_type}
    if isinstance(block, mcp_types.AudioContent):
        return {"type": "text", "text": f"[audio {block.mime_type}, {len(block.data)} base64 "
                                        "characters, not shown]"}
    if isinstance(block, mcp_types.EmbeddedResource):
        resource = block.resource
        if isinstance(resource, mcp_types.TextResourceContents):
            return {"type": "text", "text": f"[resource {resource.uri}]\n{resource.text}"}
        mime = getattr(resource, "mime_type", None) or "application/octet-stream"
        return {"type": "text", "text": f"[resource {resource.uri}: {mime}, binary, not shown]"}
    if isinstance(block, mcp_types.ResourceLink):
        return {"type": "text", "text": f"[resource link {block.uri} ({block.name})]"}
    kind = getattr(block, "type", type(block).__name__)
    return {"type": "text", "text": f"[{kind} content, not shown]"}


def _cut(content: list[dict[str, Any]], limit: int, server: str) -> list[dict[str, Any]]:
    total = sum(len(b.get("text", "")) for b in content if b["type"] == "text")
    if total <= limit:
        return content
    left = limit
    out: list[dict[str, Any]] = []
    for block in content:
        if block["type"] != "text":
            out.append(block)
            continue
        text = block["text"]
        if left <= 0:
            continue
        out.append({**block, "text": text[:left]})
        left -= len(text)
    out.append({"type": "text", "text": f"[result cut: {limit} of {total} characters shown "
                                        f"(mcp.servers.{server}.maxResultChars)]"})
    return out


def map_call_result(result: mcp_types.CallToolResult, *, server: str, tool: str,
                    max_chars: int) -> dict[str, Any]:
    """The tool result the runtime records for one call's `result`."""
    content = [_block(b) for b in result.content]
    structured = result.structured_content
    if not content and structured is not None:
        content = [{"type": "text", "text": json.dumps(structured, ensure_ascii=False)}]
    if not content:
        content = [{"type": "text", "text": "(no output)"}]
    mapped: dict[str, Any] = {
        "content": _cut(content, max_chars, server),
        "details": {"mcp": {"server": server, "tool": tool}},
    }
    if structured is not None:
        mapped["details"]["mcp"]["structuredContent"] = structured
    if result.is_error:
        mapped["isError"] = True
    return mapped
