"""Codex's rollout files, read (Codex 0.169).

Codex keeps each thread as JSON lines in
`$CODEX_HOME/sessions/YYYY/MM/DD/rollout-<timestamp>-<thread id>.jsonl` (`~/.codex` by
default); `codex resume <id>` and the app-server's `thread/resume` find a thread by its
file there. Every line is `{timestamp, ordinal?, type, payload}`: the first is
`session_meta` (`payload.id` is the thread id, `payload.cwd` where it ran); then
`response_item` lines hold what the model saw, as Responses API items (`message` with a
role and `input_text` / `output_text` blocks, `function_call`, `function_call_output`,
`custom_tool_call`, `custom_tool_call_output`, `local_shell_call`, `reasoning`,
`web_search_call`, ...); `turn_context` names the turn's model; `event_msg`,
`world_state`, `token_usage_record` and `compacted` are Codex's own bookkeeping.

Codex puts context of its own into the model's input as `developer` messages and as
`user` messages (the environment, AGENTS.md, skills): those are marked with a
provenance other than the user's (0.169), or start with one of Codex's own tags.

Pure: lines in, host messages out.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from clawharness.plugin_sdk.agent_harness import ContentBlock, Message
from clawharness.plugin_sdk.agent_harness_session_runtime import NativeSessionFormatError

__all__ = ["WHAT", "CodexRollout", "handoff_items", "parse_rollout", "rollout_date_dirs"]

WHAT: Final = "a Codex rollout file"
#: Codex's tools -> the host's names for them (the harness's own turns use the same)
TOOL_NAMES: Final[Mapping[str, str]] = {
    "exec_command": "exec", "shell": "exec", "shell_command": "exec", "local_shell": "exec",
    "container.exec": "exec", "apply_patch": "apply_patch", "write_stdin": "process",
}
#: user messages Codex writes itself (older rollouts carry no provenance)
_CODEX_CONTEXT: Final = ("<environment_context>", "<user_instructions>", "# AGENTS.md",
                         "<permissions instructions>", "<skills_instructions>",
                         "<INSTRUCTIONS>", "<user_shell_command>", "<turn_aborted>")
_CALLS: Final = frozenset({"function_call", "custom_tool_call", "local_shell_call"})
_OUTPUTS: Final = frozenset({"function_call_output", "custom_tool_call_output"})
_NAME_DATE: Final = re.compile(r"rollout-(\d{4})-(\d{2})-(\d{2})T")


@dataclass(frozen=True, slots=True)
class CodexRollout:
    """A Codex thread as host messages `(key, message)` (keyed by the item's id, else its
    line), its model, where it ran, and what was left out."""

    thread_id: str
    messages: tuple[tuple[str, Message], ...]
    model: str | None
    cwd: str | None
    left_out: tuple[str, ...]


def rollout_date_dirs(file_name: str) -> tuple[str, str, str] | None:
    """`(YYYY, MM, DD)` of a rollout's file name, where Codex files it."""
    match = _NAME_DATE.match(file_name)
    return (match.group(1), match.group(2), match.group(3)) if match else None


def _ms(stamp: Any) -> int | None:
    if not isinstance(stamp, str):
        return None
    try:
        return int(dt.datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp() * 1000)
    except ValueError:
        return None


def _text_blocks(content: Any) -> list[ContentBlock]:
    out: list[ContentBlock] = []
    for block in content if isinstance(content, list) else ():
        if not isinstance(block, Mapping):
            continue
        kind = block.get("type")
        if kind in ("input_text", "output_text", "text") and isinstance(block.get("text"), str):
            if block["text"]:
                out.append({"type": "text", "text": block["text"]})
        elif kind == "input_image" and isinstance(block.get("image_url"), str):
            url = block["image_url"]
            if url.startswith("data:") and ";base64," in url:
                mime, data = url[5:].split(";base64,", 1)
                out.append({"type": "image", "data": data, "mimeType": mime or "image/png"})
    return out


def _codex_context(payload: Mapping[str, Any], blocks: list[ContentBlock]) -> bool:
    """A user message Codex wrote itself (environment, instructions, skills)."""
    meta = payload.get("internal_chat_message_metadata_passthrough")
    items = meta.get("content_item_metadata") if isinstance(meta, Mapping) else None
    if isinstance(items, list) and items:
        kinds = {str((i.get("provenance") or {}).get("type")) for i in items
                 if isinstance(i, Mapping) and isinstance(i.get("provenance"), Mapping)}
        if kinds and "user" not in kinds:
            return True
    first = blocks[0].get("text", "") if blocks and blocks[0].get("type") == "text" else ""
    return first.lstrip().startswith(_CODEX_CONTEXT)


def _output_blocks(output: Any) -> list[ContentBlock]:
    if isinstance(output, str):
        return [{"type": "text", "text": output}] if output else []
    if isinstance(output, Mapping):  # the older {"content": ..., "success": ...} shape
        return _output_blocks(output.get("content"))
    if isinstance(output, list):
        return _text_blocks(output)
    return []


def _arguments(raw: Any) -> dict[str, Any]:
    if isinstance(raw, Mapping):
        return dict(raw)
    if isinstance(raw, str):
        try:
            value = json.loads(raw)
        except ValueError:
            return {"input": raw}
        return dict(value) if isinstance(value, Mapping) else {"input": value}
    return {}


def _check_format(path: str, lines: Sequence[tuple[int, dict[str, Any]]]) -> str:
    number, first = lines[0]
    payload = first.get("payload")
    if first.get("type") != "session_meta" or not isinstance(payload, Mapping):
        looks = ("a Claude Code session file" if "sessionId" in first or "uuid" in first
                 else f"a `{first.get('type')}` line")
        hint = "adopt it with --from claude-code" if "sessionId" in first else None
        raise NativeSessionFormatError(
            f"{path}, line {number}: {looks}, not the `session_meta` line a Codex rollout "
            f"starts with, so this is not {WHAT}", hint=hint)
    thread = payload.get("id")
    if not isinstance(thread, str) or not thread:
        raise NativeSessionFormatError(
            f"{path}, line {number}: the `session_meta` line names no thread id")
    return thread


class _Reader:
    def __init__(self) -> None:
        self.messages: list[tuple[str, Message]] = []
        self.left_out: dict[str, int] = {}
        self.tool_names: dict[str, str] = {}
        self.keys: set[str] = set()
        #: the reply being assembled (consecutive assistant-side items)
        self.reply: Message | None = None

    def skip(self, why: str) -> None:
        self.left_out[why] = self.left_out.get(why, 0) + 1

    def add(self, key: str, message: Message) -> None:
        unique, n = key, 1
        while unique in self.keys:
            n += 1
            unique = f"{key}:{n}"
        self.keys.add(unique)
        self.messages.append((unique, message))

    def item(self, key: str, payload: Mapping[str, Any], stamp: int | None) -> None:
        kind = payload.get("type")
        if kind == "message":
            self.message(key, payload, stamp)
        elif kind in _CALLS:
            self.call(key, payload, stamp)
        elif kind in _OUTPUTS:
            self.reply = None
            call = str(payload.get("call_id", ""))
            result: Message = {"role": "toolResult", "toolCallId": call,
                               "toolName": self.tool_names.get(call, "tool"),
                               "content": _output_blocks(payload.get("output")),
                               "isError": False}
            if stamp is not None:
                result["timestamp"] = stamp
            self.add(f"{key}", result)
        elif kind == "reasoning":
            self.skip("the model's reasoning (encrypted for OpenAI's API only)")
        elif kind in ("web_search_call", "image_generation_call", "tool_search_call",
                      "tool_search_output"):
            self.skip("Codex's built-in web search, image and tool-search items")
        elif kind in ("compaction", "context_compaction", "compaction_trigger"):
            self.skip("compaction records (the messages before them are carried)")

    def message(self, key: str, payload: Mapping[str, Any], stamp: int | None) -> None:
        role = payload.get("role")
        blocks = _text_blocks(payload.get("content"))
        if role == "assistant":
            if blocks:
                self.reply_with(key, blocks, stamp)
            return
        self.reply = None
        if role != "user" or not blocks:
            if role in ("developer", "system"):
                self.skip("Codex's own instructions (developer messages)")
            return
        if _codex_context(payload, blocks):
            self.skip("context Codex injected (environment, AGENTS.md, skills)")
            return
        message: Message = {"role": "user", "content": blocks}
        if stamp is not None:
            message["timestamp"] = stamp
        self.add(key, message)

    def reply_with(self, key: str, blocks: list[ContentBlock], stamp: int | None) -> None:
        if self.reply is None:
            self.reply = {"role": "assistant", "content": [], "stopReason": "stop",
                          "api": "codex-app-server"}
            if stamp is not None:
                self.reply["timestamp"] = stamp
            self.add(key, self.reply)
        self.reply["content"] = [*self.reply["content"], *blocks]
        if any(b.get("type") == "toolCall" for b in self.reply["content"]):
            self.reply["stopReason"] = "toolUse"

    def call(self, key: str, payload: Mapping[str, Any], stamp: int | None) -> None:
        kind = payload.get("type")
        call = str(payload.get("call_id") or payload.get("id") or key)
        if kind == "local_shell_call":
            name, arguments = "exec", _arguments(payload.get("action"))
        else:
            raw = str(payload.get("name", "tool"))
            namespace = payload.get("namespace")
            name = TOOL_NAMES.get(raw) or (f"{namespace}__{raw}" if namespace else raw)
            arguments = _arguments(payload.get("arguments") if kind == "function_call"
                                   else payload.get("input"))
        self.tool_names[call] = name
        self.reply_with(key, [{"type": "toolCall", "id": call, "name": name,
                               "arguments": arguments}], stamp)


def parse_rollout(path: str, lines: Sequence[tuple[int, dict[str, Any]]]) -> CodexRollout:
    """The conversation of a Codex rollout (`lines` as `read_session_lines` gives them),
    as host messages. `NativeSessionFormatError` for another format."""
    thread = _check_format(path, lines)
    reader = _Reader()
    model: str | None = None
    cwd = lines[0][1]["payload"].get("cwd")
    for number, obj in lines[1:]:
        kind, payload = obj.get("type"), obj.get("payload")
        if not isinstance(payload, Mapping):
            continue
        if kind == "turn_context" and isinstance(payload.get("model"), str):
            model = payload["model"]
        elif kind == "compacted":
            reader.skip("compaction records (the messages before them are carried)")
        elif kind == "response_item":
            item_id = payload.get("id")
            ordinal = obj.get("ordinal")
            key = (str(item_id) if isinstance(item_id, str) and item_id
                   else f"line:{ordinal if isinstance(ordinal, int) else number}")
            reader.item(key, payload, _ms(obj.get("timestamp")))
        elif kind == "session_meta":
            raise NativeSessionFormatError(
                f"{path}, line {number}: a second `session_meta` line: not one thread's "
                f"rollout, so this is not {WHAT}")
    notes = tuple(f"{why} ({count})" for why, count in reader.left_out.items())
    return CodexRollout(thread, tuple(reader.messages), model,
                        cwd if isinstance(cwd, str) else None, notes)


def handoff_items(conversation: Sequence[tuple[str, str]]) -> list[dict[str, Any]]:
    """`conversation` (alternating user and assistant texts) as the Responses API items
    `thread/inject_items` appends to a thread's model-visible history."""
    items: list[dict[str, Any]] = []
    for role, text in conversation:
        block = "input_text" if role == "user" else "output_text"
        items.append({"type": "message", "role": role,
                      "content": [{"type": block, "text": text}]})
    return items
