"""Claude Code's session files, read and written (Claude Code 2.1).

Claude Code keeps each conversation as JSON lines in
`$CLAUDE_CONFIG_DIR/projects/<project slug>/<session id>.jsonl` (the config dir is
`~/.claude` by default), and `claude --resume <id>` run in the project's directory
continues it. The slug is the project directory's real path with every character but
ASCII letters and digits turned into `-` (per UTF-16 unit); a slug over 200 characters
is cut to 200 and given `-<hash>` (the path's 32-bit string hash, base 36).

A line is an object with a `type`. The conversation is in `user` and `assistant` lines:
`{type, uuid, parentUuid, sessionId, cwd, timestamp, isSidechain, message}` where
`message` is the Anthropic Messages API message (`content` a string, or blocks `text`,
`image`, `tool_use`, `tool_result`, `thinking`). One API reply may be written as several
`assistant` lines sharing `message.id` (a line per content block). Lines chain by
`parentUuid`; the conversation `--resume` continues is the chain ending at the newest
leaf (a `last-prompt` line's `leafUuid`, else the last message line); a compaction
starts a new chain at a `compact_boundary` `system` line whose `logicalParentUuid`
points back. Other types (`summary`, `attachment`, `system`, `queue-operation`,
`last-prompt`, `mode`, `file-history-snapshot`, `progress`, ...) are the CLI's own
bookkeeping. Flags: `isSidechain` (a sub-agent's conversation), `isMeta` (context the
CLI injected), `isCompactSummary` (the summary a compaction wrote),
`isApiErrorMessage` (an API failure shown as a reply).

Pure: bytes and lines in, messages and lines out.
"""

from __future__ import annotations

import datetime as dt
import json
import re
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from clawharness.plugin_sdk.agent_harness import ContentBlock, Message
from clawharness.plugin_sdk.agent_harness_session_runtime import NativeSessionFormatError

__all__ = [
    "WHAT",
    "ClaudeSession",
    "encode_lines",
    "handoff_lines",
    "parse_claude_session",
    "project_slug",
    "projects_dir",
    "session_id_like",
]

#: how errors name the format
WHAT: Final = "a Claude Code session file"
_SLUG_MAX: Final = 200
_UUID: Final = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-"
                          r"[0-9a-fA-F]{12}")
_MESSAGE_TYPES: Final = frozenset({"user", "assistant"})
#: user text the CLI writes for its own slash commands (not said to the model)
_LOCAL_COMMAND: Final = ("<command-name>", "<local-command-stdout>", "<local-command-caveat>",
                         "<local-command-stderr>")
_STOP_REASONS: Final[Mapping[str, str]] = {"end_turn": "stop", "tool_use": "toolUse",
                                           "max_tokens": "length", "stop_sequence": "stop"}


def session_id_like(text: str) -> bool:
    """Whether `text` has the shape of a Claude Code session id (a UUID)."""
    return _UUID.fullmatch(text.strip()) is not None


def _utf16_units(text: str) -> list[int]:
    data = text.encode("utf-16-le", "surrogatepass")
    return [int.from_bytes(data[i:i + 2], "little") for i in range(0, len(data), 2)]


def _string_hash(text: str) -> int:
    """JavaScript's `(h << 5) - h + charCode | 0` over UTF-16 units, made positive."""
    h = 0
    for unit in _utf16_units(text):
        h = ((h << 5) - h + unit) & 0xFFFFFFFF
    if h >= 0x80000000:
        h -= 0x100000000
    return abs(h)


def _base36(number: int) -> str:
    digits = "0123456789abcdefghijklmnopqrstuvwxyz"
    out = ""
    while True:
        number, rest = divmod(number, 36)
        out = digits[rest] + out
        if number == 0:
            return out


def project_slug(path: str) -> str:
    """The `projects/` directory name Claude Code uses for a working directory (give it
    the real path, as Claude Code resolves it)."""
    slug = "".join(c if c.isascii() and c.isalnum() else ("--" if ord(c) > 0xFFFF else "-")
                   for c in path)
    if len(slug) <= _SLUG_MAX:
        return slug
    return f"{slug[:_SLUG_MAX]}-{_base36(_string_hash(path))}"


@dataclass(frozen=True, slots=True)
class ClaudeSession:
    """A Claude Code conversation as host messages: `(key, message)` in order, keyed by
    the line's `uuid` (a reply by its `message.id`); the model, the working directory
    and the notes on what was left out."""

    session_id: str
    messages: tuple[tuple[str, Message], ...]
    model: str | None
    cwd: str | None
    left_out: tuple[str, ...]


def _ms(stamp: Any) -> int | None:
    if not isinstance(stamp, str):
        return None
    try:
        return int(dt.datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp() * 1000)
    except ValueError:
        return None


def _check_format(path: str, lines: Sequence[tuple[int, dict[str, Any]]]) -> None:
    first_number, first = lines[0]
    if first.get("type") == "session_meta" or "payload" in first:
        raise NativeSessionFormatError(
            f"{path}, line {first_number}: a `{first.get('type')}` record with a payload, "
            f"which is how a Codex rollout starts, so this is not {WHAT}",
            hint="adopt it with --from codex")
    if not any(isinstance(o.get("message"), Mapping) and o.get("type") in _MESSAGE_TYPES
               and isinstance(o.get("uuid"), str) for _, o in lines):
        kinds = ", ".join(sorted({str(o.get("type")) for _, o in lines}))[:200]
        raise NativeSessionFormatError(
            f"{path}: no `user` or `assistant` line with a message and a uuid (line types "
            f"found: {kinds or 'none'}), so this is not {WHAT}")


def _chain(lines: Sequence[tuple[int, dict[str, Any]]]) -> list[dict[str, Any]]:
    """The conversation `--resume` continues: from the newest leaf back to the root,
    across compactions, oldest first."""
    by_uuid: dict[str, dict[str, Any]] = {}
    leaf: str | None = None
    last_message: str | None = None
    for _, obj in lines:
        key = obj.get("uuid")
        if isinstance(key, str):
            by_uuid[key] = obj
            if obj.get("type") in _MESSAGE_TYPES and not obj.get("isSidechain"):
                last_message = key
        if obj.get("type") == "last-prompt" and isinstance(obj.get("leafUuid"), str):
            leaf = obj["leafUuid"]
    if leaf is None or leaf not in by_uuid or (last_message is not None and _after(
            lines, last_message, leaf)):
        leaf = last_message
    chain: list[dict[str, Any]] = []
    seen: set[str] = set()
    current = leaf
    while isinstance(current, str) and current in by_uuid and current not in seen:
        seen.add(current)
        obj = by_uuid[current]
        chain.append(obj)
        parent = obj.get("parentUuid")
        if parent is None and obj.get("type") == "system" and obj.get(
                "subtype") == "compact_boundary":
            parent = obj.get("logicalParentUuid")
        current = parent
    chain.reverse()
    return chain


def _after(lines: Sequence[tuple[int, dict[str, Any]]], first: str, second: str) -> bool:
    """Whether the line of uuid `first` comes after the one of `second`."""
    order = {o.get("uuid"): n for n, o in lines if isinstance(o.get("uuid"), str)}
    return order.get(first, 0) > order.get(second, 0)


def _image(source: Any) -> ContentBlock | None:
    if isinstance(source, Mapping) and source.get("type") == "base64":
        return {"type": "image", "data": str(source.get("data", "")),
                "mimeType": str(source.get("media_type", "image/png"))}
    return None


def _blocks(content: Any) -> list[ContentBlock]:
    """Text and images of a message or a tool result's content."""
    if isinstance(content, str):
        return [{"type": "text", "text": content}] if content else []
    out: list[ContentBlock] = []
    for block in content if isinstance(content, list) else ():
        if not isinstance(block, Mapping):
            continue
        if block.get("type") == "text" and isinstance(block.get("text"), str):
            out.append({"type": "text", "text": block["text"]})
        elif block.get("type") == "image":
            image = _image(block.get("source"))
            if image is not None:
                out.append(image)
    return out


class _Reader:
    def __init__(self, canonical: Callable[[str], str]) -> None:
        self.canonical = canonical
        self.messages: list[tuple[str, Message]] = []
        self.left_out: dict[str, int] = {}
        self.tool_names: dict[str, str] = {}
        self.model: str | None = None
        #: the reply being assembled from lines sharing one message id
        self.reply_id: str | None = None
        self.keys: set[str] = set()

    def add(self, key: str, message: Message) -> str:
        """Append under `key`, made unique when a reply's lines were split by others."""
        unique, n = key, 1
        while unique in self.keys:
            n += 1
            unique = f"{key}:{n}"
        self.keys.add(unique)
        self.messages.append((unique, message))
        return unique

    def skip(self, why: str) -> None:
        self.left_out[why] = self.left_out.get(why, 0) + 1

    def user(self, obj: Mapping[str, Any], message: Mapping[str, Any]) -> None:
        self.reply_id = None
        key = str(obj["uuid"])
        stamp = _ms(obj.get("timestamp"))
        content = message.get("content")
        blocks = content if isinstance(content, list) else []
        for block in blocks:
            if isinstance(block, Mapping) and block.get("type") == "tool_result":
                call = str(block.get("tool_use_id", ""))
                result: Message = {
                    "role": "toolResult", "toolCallId": call,
                    "toolName": self.tool_names.get(call, "tool"),
                    "content": _blocks(block.get("content")),
                    "isError": block.get("is_error") is True}
                if stamp is not None:
                    result["timestamp"] = stamp
                self.add(f"{key}:{call}", result)
        said = _blocks(content if isinstance(content, str) else [
            b for b in blocks if isinstance(b, Mapping) and b.get("type") != "tool_result"])
        if not said:
            return
        first = said[0].get("text", "") if said[0].get("type") == "text" else ""
        if first.lstrip().startswith(_LOCAL_COMMAND):
            self.skip("the CLI's own slash commands and their output")
            return
        text: Message = {"role": "user", "content": said}
        if stamp is not None:
            text["timestamp"] = stamp
        self.add(key, text)

    def assistant(self, obj: Mapping[str, Any], message: Mapping[str, Any]) -> None:
        message_id = message.get("id")
        key = str(message_id) if isinstance(message_id, str) and message_id else str(obj["uuid"])
        content: list[ContentBlock] = []
        raw_content = message.get("content")
        for block in raw_content if isinstance(raw_content, list) else ():
            if not isinstance(block, Mapping):
                continue
            kind = block.get("type")
            if kind == "text" and isinstance(block.get("text"), str) and block["text"]:
                content.append({"type": "text", "text": block["text"]})
            elif kind == "tool_use":
                call, name = str(block.get("id", "")), str(block.get("name", ""))
                self.tool_names[call] = self.canonical(name)
                raw = block.get("input")
                content.append({"type": "toolCall", "id": call, "name": self.canonical(name),
                                "arguments": dict(raw) if isinstance(raw, Mapping) else {}})
            elif kind in ("thinking", "redacted_thinking"):
                self.skip("the model's thinking (signed for Anthropic's API only)")
        model = message.get("model")
        if isinstance(model, str) and model and model != "<synthetic>":
            self.model = model
        if self.reply_id == key and self.messages:
            _, reply = self.messages[-1]
            reply["content"] = [*reply["content"], *content]
        else:
            if not content:
                return
            reply = {"role": "assistant", "content": content, "api": "claude-cli"}
            if isinstance(model, str) and model and model != "<synthetic>":
                reply["model"] = model
            stamp = _ms(obj.get("timestamp"))
            if stamp is not None:
                reply["timestamp"] = stamp
            self.add(key, reply)
        self.reply_id = key
        has_calls = any(b.get("type") == "toolCall" for b in reply["content"])
        stop = message.get("stop_reason")
        reply["stopReason"] = "toolUse" if has_calls else _STOP_REASONS.get(str(stop), "stop")


def parse_claude_session(path: str, lines: Sequence[tuple[int, dict[str, Any]]], *,
                         session_id: str,
                         canonical: Callable[[str], str] = lambda name: name) -> ClaudeSession:
    """The conversation of a Claude Code session file (`lines` as `read_session_lines`
    gives them), as host messages; `canonical` names its tools as the host does.
    `NativeSessionFormatError` for another format or a file of another session."""
    _check_format(path, lines)
    ids = {str(o["sessionId"]) for _, o in lines if isinstance(o.get("sessionId"), str)}
    if session_id not in ids:
        raise NativeSessionFormatError(
            f"{path}: its lines belong to session(s) {', '.join(sorted(ids)) or 'none'}, not "
            f"{session_id} (the file name): Claude Code would not resume it by that id")
    reader = _Reader(canonical)
    cwd: str | None = None
    for obj in _chain(lines):
        if isinstance(obj.get("cwd"), str):
            cwd = obj["cwd"]
        message = obj.get("message")
        kind = obj.get("type")
        if kind not in _MESSAGE_TYPES or not isinstance(message, Mapping):
            continue
        if obj.get("isSidechain"):
            reader.skip("sub-agent conversations")
        elif obj.get("isCompactSummary"):
            reader.skip("a compaction's summary (the messages it summarised are carried)")
        elif obj.get("isMeta") or obj.get("isVisibleInTranscriptOnly"):
            reader.skip("context the CLI injected (reminders, command caveats)")
        elif obj.get("isApiErrorMessage"):
            reader.skip("API errors shown as replies")
        elif kind == "user":
            reader.user(obj, message)
        else:
            reader.assistant(obj, message)
    sidechains = sum(1 for _, o in lines if o.get("isSidechain")
                     and o.get("type") in _MESSAGE_TYPES)
    if sidechains and "sub-agent conversations" not in reader.left_out:
        reader.left_out["sub-agent conversations"] = sidechains
    notes = tuple(f"{why} ({count})" for why, count in reader.left_out.items())
    return ClaudeSession(session_id, tuple(reader.messages), reader.model, cwd, notes)


def handoff_lines(conversation: Sequence[tuple[str, str]], *, session_id: str, cwd: str,
                  model: str | None, version: str, started_ms: int) -> list[dict[str, Any]]:
    """A Claude Code session file's lines holding `conversation` (alternating user and
    assistant texts, as `HandoffRequest.conversation()` gives them): one chained
    `user` or `assistant` line each, a millisecond apart from `started_ms`. It starts
    with the user and ends with a reply, as the API needs, so a first reply or a last
    question left unanswered gets a one-line note beside it."""
    turns = list(conversation)
    if turns and turns[0][0] != "user":
        turns.insert(0, ("user", "[This conversation was handed over from clawharness; "
                                 "it continues here.]"))
    if turns and turns[-1][0] == "user":
        turns.append(("assistant", "[The conversation was handed over before this message "
                                   "was answered.]"))
    lines: list[dict[str, Any]] = []
    parent: str | None = None
    for index, (role, text) in enumerate(turns):
        line_id = str(uuid.uuid4())
        stamp = dt.datetime.fromtimestamp((started_ms + index) / 1000, tz=dt.UTC)
        line: dict[str, Any] = {
            "parentUuid": parent, "isSidechain": False, "type": role, "uuid": line_id,
            "timestamp": stamp.isoformat(timespec="milliseconds").replace("+00:00", "Z"),
            "cwd": cwd, "sessionId": session_id, "userType": "external", "version": version}
        if role == "user":
            line["message"] = {"role": "user", "content": text}
        else:
            line["message"] = {
                "id": f"msg_handoff_{uuid.uuid4().hex[:24]}", "type": "message",
                "role": "assistant", "model": model or "unknown",
                "content": [{"type": "text", "text": text}], "stop_reason": "end_turn",
                "stop_sequence": None, "usage": {"input_tokens": 0, "output_tokens": 0}}
        lines.append(line)
        parent = line_id
    return lines


def encode_lines(lines: Sequence[Mapping[str, Any]]) -> bytes:
    """JSON lines as Claude Code writes them (one object a line, each ending in a newline)."""
    return "".join(json.dumps(line, ensure_ascii=False, separators=(",", ":")) + "\n"
                   for line in lines).encode("utf-8")


def projects_dir(config_dir: str | Path) -> Path:
    return Path(config_dir) / "projects"
