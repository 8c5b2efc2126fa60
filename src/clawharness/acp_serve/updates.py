"""What the host's turn events and stored transcripts look like as ACP session updates
(pure translation, no I/O).

- a tool call's `tool` events (`phase: "start"` with its name and arguments, `"result"`
  with `isError` and a one-line `preview`) become `tool_call` / `tool_call_update`, with
  a kind (read, edit, execute, fetch, search, ...), a title, the files it touches as
  locations, and for `write`/`edit` the change as a diff;
- `thinking` events become thought chunks and `plan` events the agent's plan;
- a stored transcript replays as user and agent message chunks, thoughts, and each tool
  call with its result (`session/load`).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Final, get_args

from acp.schema import (
    AgentMessageChunk,
    AgentPlanUpdate,
    AgentThoughtChunk,
    AudioContentBlock,
    ContentToolCallContent,
    CurrentModeUpdate,
    EmbeddedResourceContentBlock,
    FileEditToolCallContent,
    ImageContentBlock,
    PlanEntry,
    PlanEntryPriority,
    PlanEntryStatus,
    ResourceContentBlock,
    TextContentBlock,
    TextResourceContents,
    ToolCallLocation,
    ToolCallProgress,
    ToolCallStart,
    ToolKind,
    UsageUpdate,
    UserMessageChunk,
)

from clawharness.tool_display import resolve_tool_display

__all__ = [
    "PromptBlock",
    "PromptRefused",
    "SessionUpdate",
    "agent_text",
    "plan_update",
    "prompt_text",
    "replay_entries",
    "thought_text",
    "tool_finished",
    "tool_kind",
    "tool_started",
    "tool_title",
]

PromptBlock = (TextContentBlock | ImageContentBlock | AudioContentBlock
               | ResourceContentBlock | EmbeddedResourceContentBlock)
SessionUpdate = (UserMessageChunk | AgentMessageChunk | AgentThoughtChunk | ToolCallStart
                 | ToolCallProgress | AgentPlanUpdate | CurrentModeUpdate | UsageUpdate)
ToolContent = ContentToolCallContent | FileEditToolCallContent

#: host tools by kind; other names are classified by the words in them
_KINDS: Final[Mapping[str, ToolKind]] = {
    "read": "read", "ls": "read", "write": "edit", "edit": "edit", "apply_patch": "edit",
    "exec": "execute", "process": "execute", "web_fetch": "fetch", "web_search": "search",
}
_WORDS: Final[tuple[tuple[str, ToolKind], ...]] = (
    ("read", "read"), ("list", "read"), ("get", "read"), ("write", "edit"), ("edit", "edit"),
    ("patch", "edit"), ("delete", "delete"), ("remove", "delete"), ("move", "move"),
    ("rename", "move"), ("search", "search"), ("find", "search"), ("grep", "search"),
    ("exec", "execute"), ("run", "execute"), ("bash", "execute"), ("shell", "execute"),
    ("fetch", "fetch"), ("http", "fetch"), ("think", "think"),
)
#: argument names that name a file a call touches
_PATH_KEYS: Final = ("path", "file_path", "filePath", "file")
#: the longest argument value a title repeats
_TITLE_CHARS: Final = 120
_PRIORITIES: Final = frozenset(get_args(PlanEntryPriority))
_STATUSES: Final = frozenset(get_args(PlanEntryStatus))


class PromptRefused(ValueError):
    """A prompt block this agent does not take (it did not advertise it)."""


# --- tool calls ---------------------------------------------------------------------


def tool_kind(name: str) -> ToolKind:
    """The ACP kind of a tool call, so a client picks its icon and what it lets through
    unasked (acpx approves `read` kinds in its default mode)."""
    base = name.rsplit("__", 1)[-1].lower()  # an MCP tool: `<server>__<tool>`
    if base in _KINDS:
        return _KINDS[base]
    for word, kind in _WORDS:
        if word in base:
            return kind
    return "other"


def tool_title(name: str, args: Mapping[str, Any]) -> str:
    """`Label: detail`, as the host shows a call to people (`clawharness.tool_display`)."""
    display = resolve_tool_display(name, dict(args), home_dir=os.path.expanduser("~"))
    detail = (display.detail or "").replace("\n", " ").strip()
    if len(detail) > _TITLE_CHARS:
        detail = detail[:_TITLE_CHARS - 1].rstrip() + "…"
    return f"{display.label}: {detail}" if detail else display.label


def _absolute(path: str, cwd: str) -> str:
    return os.path.normpath(path if os.path.isabs(path) else os.path.join(cwd, path))


def _file_arg(args: Mapping[str, Any]) -> str | None:
    for key in _PATH_KEYS:
        value = args.get(key)
        if isinstance(value, str) and value.strip():
            return value
    return None


def _locations(name: str, args: Mapping[str, Any], cwd: str) -> list[ToolCallLocation] | None:
    path = _file_arg(args)
    if path is None:
        return None
    line = args.get("offset") if tool_kind(name) == "read" else None
    at = line if isinstance(line, int) and not isinstance(line, bool) and line > 0 else None
    return [ToolCallLocation(path=_absolute(path, cwd), line=at)]


def _diff(name: str, args: Mapping[str, Any], cwd: str) -> list[ToolContent] | None:
    """The change a `write` or `edit` call makes, as an ACP diff."""
    path = _file_arg(args)
    if path is None or name not in ("write", "edit"):
        return None
    if name == "write" and isinstance(args.get("content"), str):
        return [FileEditToolCallContent(type="diff", path=_absolute(path, cwd),
                                        old_text=None, new_text=args["content"])]
    old, new = args.get("oldText"), args.get("newText")
    if name == "edit" and isinstance(old, str) and isinstance(new, str):
        return [FileEditToolCallContent(type="diff", path=_absolute(path, cwd),
                                        old_text=old, new_text=new)]
    return None


def tool_started(data: Mapping[str, Any], cwd: str) -> ToolCallStart | None:
    """The `tool_call` of a `tool` event with `phase: "start"` (None for another)."""
    call_id, name = data.get("toolCallId"), data.get("name")
    if not isinstance(call_id, str) or not call_id or not isinstance(name, str):
        return None
    raw = data.get("args")
    args: Mapping[str, Any] = raw if isinstance(raw, Mapping) else {}
    return ToolCallStart(
        session_update="tool_call", tool_call_id=call_id, title=tool_title(name, args),
        kind=tool_kind(name), status="in_progress", raw_input=dict(args),
        locations=_locations(name, args, cwd), content=_diff(name, args, cwd))


def tool_finished(data: Mapping[str, Any], *, keep_content: bool) -> ToolCallProgress | None:
    """The `tool_call_update` of a `tool` event with `phase: "result"`. `keep_content`:
    the call already shows richer content (a diff, a terminal) that the preview must
    not replace."""
    call_id = data.get("toolCallId")
    if not isinstance(call_id, str) or not call_id:
        return None
    failed = bool(data.get("isError"))
    preview = data.get("preview")
    content: list[ToolContent] | None = None
    if not keep_content and isinstance(preview, str) and preview:
        content = [_text_content(preview)]
    return ToolCallProgress(session_update="tool_call_update", tool_call_id=call_id,
                            status="failed" if failed else "completed", content=content,
                            raw_output={"isError": failed, "preview": preview}
                            if isinstance(preview, str) else {"isError": failed})


def has_rich_content(start: ToolCallStart) -> bool:
    return bool(start.content)


def _text_content(text: str) -> ContentToolCallContent:
    return ContentToolCallContent(type="content", content=TextContentBlock(type="text",
                                                                          text=text))


# --- text, thoughts, plans ----------------------------------------------------------


def agent_text(text: str) -> AgentMessageChunk:
    return AgentMessageChunk(session_update="agent_message_chunk",
                             content=TextContentBlock(type="text", text=text))


def thought_text(text: str) -> AgentThoughtChunk:
    return AgentThoughtChunk(session_update="agent_thought_chunk",
                             content=TextContentBlock(type="text", text=text))


def plan_update(data: Mapping[str, Any]) -> AgentPlanUpdate | None:
    """A `plan` event (`entries: [{content|step, status, priority?}]`) as the plan."""
    raw = data.get("entries", data.get("plan"))
    if not isinstance(raw, Sequence) or isinstance(raw, str):
        return None
    entries: list[PlanEntry] = []
    for item in raw:
        if not isinstance(item, Mapping):
            continue
        content = item.get("content", item.get("step"))
        if not isinstance(content, str) or not content.strip():
            continue
        status = str(item.get("status", "pending")).replace("inProgress", "in_progress")
        priority = item.get("priority", "medium")
        entries.append(PlanEntry(
            content=content, status=status if status in _STATUSES else "pending",  # type: ignore[arg-type]
            priority=priority if priority in _PRIORITIES else "medium"))
    return AgentPlanUpdate(session_update="plan", entries=entries)


# --- prompts ------------------------------------------------------------------------


def prompt_text(blocks: Iterable[PromptBlock]) -> str:
    """The user's message from a prompt's blocks: its text, each linked resource named,
    each embedded text resource quoted with its URI. `PromptRefused` for images and
    audio (not advertised: the host's turns take text)."""
    parts: list[str] = []
    for block in blocks:
        if isinstance(block, TextContentBlock):
            parts.append(block.text)
        elif isinstance(block, ResourceContentBlock):
            parts.append(f"[{block.name}]({block.uri})")
        elif isinstance(block, EmbeddedResourceContentBlock):
            resource = block.resource
            if not isinstance(resource, TextResourceContents):
                raise PromptRefused(f"the embedded resource {resource.uri} is binary; "
                                    "only text resources are taken")
            parts.append(f"<context uri=\"{resource.uri}\">\n{resource.text}\n</context>")
        else:
            raise PromptRefused(f"{block.type} prompt blocks are not supported (the agent "
                                "did not advertise them): send text")
    return "\n\n".join(p for p in parts if p)


# --- replay (session/load) ----------------------------------------------------------


def _blocks(message: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    content = message.get("content")
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    if isinstance(content, list):
        return [b for b in content if isinstance(b, Mapping)]
    return []


def _result_text(blocks: Iterable[Mapping[str, Any]]) -> str:
    return "\n".join(b["text"] for b in blocks
                     if b.get("type") == "text" and isinstance(b.get("text"), str))


def replay_entries(messages: Iterable[Mapping[str, Any]], cwd: str) -> list[SessionUpdate]:
    """A stored conversation (transcript messages, oldest first) as the updates that
    show it again: each user and assistant text, thought, tool call and result."""
    updates: list[SessionUpdate] = []
    rich: set[str] = set()  # calls shown with a diff, which their result must not replace
    for message in messages:
        role = message.get("role")
        if role == "user":
            text = _result_text(_blocks(message))
            if text:
                updates.append(UserMessageChunk(
                    session_update="user_message_chunk",
                    content=TextContentBlock(type="text", text=text)))
        elif role == "assistant":
            for block in _blocks(message):
                kind = block.get("type")
                if kind == "text" and block.get("text"):
                    updates.append(agent_text(str(block["text"])))
                elif kind == "thinking" and block.get("thinking"):
                    updates.append(thought_text(str(block["thinking"])))
                elif kind == "toolCall":
                    start = tool_started({"toolCallId": block.get("id"),
                                          "name": block.get("name"),
                                          "args": block.get("arguments")}, cwd)
                    if start is not None:
                        if start.content:
                            rich.add(start.tool_call_id)
                        updates.append(start.model_copy(update={"status": "pending"}))
        elif role == "toolResult":
            call_id = message.get("toolCallId")
            if isinstance(call_id, str) and call_id:
                text = _result_text(_blocks(message))
                failed = bool(message.get("isError"))
                updates.append(ToolCallProgress(
                    session_update="tool_call_update", tool_call_id=call_id,
                    status="failed" if failed else "completed",
                    content=[_text_content(text)] if text and call_id not in rich else None))
    return updates
