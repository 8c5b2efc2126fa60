"""Display metadata for known tools: emoji, title and which argument keys make the detail.

`detail_keys` are tried in order (dotted paths reach into nested arguments); a tool with
`actions` picks the spec of its `action` argument first.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Final

__all__ = [
    "FALLBACK_DETAIL_KEYS",
    "FALLBACK_EMOJI",
    "TOOL_DISPLAY_SPECS",
    "ToolActionSpec",
    "ToolDisplaySpec",
]


@dataclass(frozen=True, slots=True)
class ToolActionSpec:
    """How one action of a multi-action tool is labelled and detailed."""

    label: str
    detail_keys: tuple[str, ...] | None = None


@dataclass(frozen=True, slots=True)
class ToolDisplaySpec:
    """How one tool is shown."""

    emoji: str
    title: str
    label: str | None = None
    detail_keys: tuple[str, ...] | None = None
    actions: dict[str, ToolActionSpec] = field(default_factory=dict)


FALLBACK_EMOJI: Final = "🧩"
#: argument keys tried for tools without a spec
FALLBACK_DETAIL_KEYS: Final[tuple[str, ...]] = (
    "command",
    "path",
    "url",
    "targetUrl",
    "targetId",
    "ref",
    "element",
    "node",
    "nodeId",
    "id",
    "requestId",
    "to",
    "channelId",
    "guildId",
    "userId",
    "name",
    "query",
    "pattern",
    "messageId",
)


def _a(label: str, detail_keys: tuple[str, ...] | None = None) -> ToolActionSpec:
    return ToolActionSpec(label, detail_keys)


TOOL_DISPLAY_SPECS: Final[dict[str, ToolDisplaySpec]] = {
    "bash": ToolDisplaySpec(
        "🛠️",
        "Bash",
        detail_keys=("command",),
    ),
    "computer": ToolDisplaySpec(
        "🖱️",
        "Computer",
        detail_keys=("action", "coordinate", "text", "node", "nodeId", "screenIndex"),
    ),
    "mobile_ui": ToolDisplaySpec(
        "📱",
        "Mobile UI",
        detail_keys=("action", "mobileAction", "snapshotId", "node", "nodeId"),
    ),
    "screen": ToolDisplaySpec(
        "🖥️",
        "Screen",
        detail_keys=("action", "sessionKey", "dock"),
    ),
    "theme": ToolDisplaySpec(
        "🎨",
        "Theme",
        detail_keys=("action", "id", "mode"),
    ),
    "terminal": ToolDisplaySpec(
        "⌨️",
        "Terminal",
        detail_keys=("action", "sessionId", "command", "cwd"),
    ),
    "portal": ToolDisplaySpec(
        "🌐",
        "Portal",
        detail_keys=("action", "port", "id", "title", "path"),
    ),
    "process": ToolDisplaySpec(
        "🧰",
        "Process",
        detail_keys=("sessionId",),
    ),
    "gateway_process": ToolDisplaySpec(
        "🧰",
        "Background Shell",
        detail_keys=("action", "sessionId"),
    ),
    "read": ToolDisplaySpec(
        "📖",
        "Read",
        detail_keys=("path",),
    ),
    "write": ToolDisplaySpec(
        "✍️",
        "Write",
        detail_keys=("path",),
    ),
    "edit": ToolDisplaySpec(
        "📝",
        "Edit",
        detail_keys=("path",),
    ),
    "attach": ToolDisplaySpec(
        "📎",
        "Attach",
        detail_keys=("path", "url", "fileName"),
    ),
    "api": ToolDisplaySpec(
        "🌐",
        "API",
        detail_keys=("url", "endpoint", "path", "method", "name"),
    ),
    "browser": ToolDisplaySpec(
        "🌐",
        "Browser",
        actions={
            "status": _a("status"),
            "start": _a("start"),
            "stop": _a("stop"),
            "tabs": _a("tabs"),
            "open": _a("open", ("targetUrl",)),
            "focus": _a("focus", ("targetId",)),
            "close": _a("close", ("targetId",)),
            "snapshot": _a("snapshot", ("targetUrl", "targetId", "ref", "element", "format")),
            "screenshot": _a("screenshot", ("targetUrl", "targetId", "ref", "element")),
            "navigate": _a("navigate", ("targetUrl", "targetId")),
            "console": _a("console", ("level", "targetId")),
            "pdf": _a("pdf", ("targetId",)),
            "upload": _a("upload", ("paths", "ref", "inputRef", "element", "targetId")),
            "dialog": _a("dialog", ("accept", "promptText", "targetId")),
            "act": _a(
                "act",
                (
                    "request.kind",
                    "request.ref",
                    "request.selector",
                    "request.text",
                    "request.value",
                ),
            ),
        },
    ),
    "canvas": ToolDisplaySpec(
        "🖼️",
        "Canvas",
        actions={
            "present": _a("present", ("target", "node", "nodeId")),
            "hide": _a("hide", ("node", "nodeId")),
            "navigate": _a("navigate", ("url", "node", "nodeId")),
        },
    ),
    "dashboard": ToolDisplaySpec(
        "📋",
        "Dashboard",
        detail_keys=("action", "tabId", "name", "title"),
    ),
    "nodes": ToolDisplaySpec(
        "📱",
        "Nodes",
        actions={
            "status": _a("status"),
            "describe": _a("describe", ("node", "nodeId")),
            "pending": _a("pending"),
            "approve": _a("approve", ("requestId",)),
            "reject": _a("reject", ("requestId",)),
            "notify": _a("notify", ("node", "nodeId", "title", "body")),
            "camera_snap": _a("camera snap", ("node", "nodeId", "facing", "deviceId")),
            "camera_list": _a("camera list", ("node", "nodeId")),
            "camera_clip": _a(
                "camera clip", ("node", "nodeId", "facing", "duration", "durationMs")
            ),
            "camera_ptz": _a("camera PTZ", ("ptzOperation", "node", "nodeId", "deviceId")),
            "screen_record": _a(
                "screen record", ("node", "nodeId", "duration", "durationMs", "fps", "screenIndex")
            ),
            "screen_snapshot": _a("screen snapshot", ("node", "nodeId", "screenIndex", "maxWidth")),
        },
    ),
    "cron": ToolDisplaySpec(
        "⏰",
        "Cron",
        actions={
            "status": _a("status"),
            "list": _a("list"),
            "add": _a("add", ("job.name", "job.id", "job.schedule", "job.cron")),
            "update": _a("update", ("id",)),
            "remove": _a("remove", ("id",)),
            "run": _a("run", ("id",)),
            "runs": _a("runs", ("id",)),
            "wake": _a("wake", ("text", "mode")),
        },
    ),
    "get_goal": ToolDisplaySpec(
        "🎯",
        "Get Goal",
        detail_keys=(),
    ),
    "create_goal": ToolDisplaySpec(
        "🎯",
        "Create Goal",
        detail_keys=("objective", "token_budget"),
    ),
    "update_goal": ToolDisplaySpec(
        "🎯",
        "Update Goal",
        detail_keys=("status",),
    ),
    "progress_card": ToolDisplaySpec(
        "🗺️",
        "Progress Card",
    ),
    "ask_user": ToolDisplaySpec(
        "❓",
        "Ask User",
        detail_keys=("questions.0.question",),
    ),
    "secrets": ToolDisplaySpec(
        "🔑",
        "Secrets",
        detail_keys=("action", "name", "kind"),
    ),
    "suggest_task": ToolDisplaySpec(
        "✨",
        "Suggest Task",
        detail_keys=("title", "tldr", "cwd"),
    ),
    "dismiss_task": ToolDisplaySpec(
        "🗑️",
        "Dismiss Task",
        detail_keys=("task_id", "reason"),
    ),
    "skill_workshop": ToolDisplaySpec(
        "🧰",
        "Skill Workshop",
        detail_keys=("action", "name", "proposal_id"),
    ),
    "openclaw": ToolDisplaySpec(
        "🦀",
        "OpenClaw",
        detail_keys=("action", "path", "model"),
    ),
    "gateway": ToolDisplaySpec(
        "🔌",
        "Gateway",
        detail_keys=("action", "path"),
    ),
    "plugins": ToolDisplaySpec(
        "🧩",
        "Plugins",
        detail_keys=("action", "pluginId", "packageName", "query"),
    ),
    "exec": ToolDisplaySpec(
        "🛠️",
        "Exec",
        detail_keys=("command",),
    ),
    "tool_call": ToolDisplaySpec(
        "🧰",
        "Tool Call",
        detail_keys=(),
    ),
    "tool_call_update": ToolDisplaySpec(
        "🧰",
        "Tool Call",
        detail_keys=(),
    ),
    "session_status": ToolDisplaySpec(
        "📊",
        "Session Status",
        detail_keys=("sessionKey", "model"),
    ),
    "github_publish": ToolDisplaySpec(
        "🔀",
        "GitHub Publish",
        detail_keys=("title",),
    ),
    "github_identity_status": ToolDisplaySpec(
        "🔐",
        "GitHub Identity Status",
        detail_keys=(),
    ),
    "sessions": ToolDisplaySpec(
        "🗂️",
        "Session Settings",
        actions={
            "patch": _a(
                "update", ("sessionKey", "label", "pinned", "archived", "model", "thinkingLevel")
            ),
            "group_list": _a("groups"),
            "group_set": _a("set groups", ("names",)),
            "group_rename": _a("rename group", ("name", "to")),
            "group_delete": _a("delete group", ("name",)),
        },
    ),
    "sessions_list": ToolDisplaySpec(
        "🗂️",
        "Sessions",
        detail_keys=(
            "kinds",
            "label",
            "agentId",
            "search",
            "limit",
            "activeMinutes",
            "includeDerivedTitles",
            "includeLastMessage",
            "messageLimit",
        ),
    ),
    "conversations_list": ToolDisplaySpec(
        "💬",
        "Conversations",
        detail_keys=("channel", "limit"),
    ),
    "conversations_send": ToolDisplaySpec(
        "📨",
        "Conversation Send",
        detail_keys=("conversationRef",),
    ),
    "conversations_turn": ToolDisplaySpec(
        "↔️",
        "Conversation Turn",
        detail_keys=("conversationRef", "timeoutSeconds"),
    ),
    "sessions_send": ToolDisplaySpec(
        "📨",
        "Session Send",
        detail_keys=("label", "sessionKey", "agentId", "timeoutSeconds"),
    ),
    "sessions_history": ToolDisplaySpec(
        "🧾",
        "Session History",
        detail_keys=("sessionKey", "limit", "includeTools"),
    ),
    "sessions_search": ToolDisplaySpec(
        "🔎",
        "Session Search",
        detail_keys=("query", "sessionKey", "limit"),
    ),
    "transcripts": ToolDisplaySpec(
        "🎙️",
        "Transcripts",
        actions={
            "start": _a(
                "start",
                (
                    "sessionId",
                    "title",
                    "providerId",
                    "accountId",
                    "guildId",
                    "channelId",
                    "meetingUrl",
                ),
            ),
            "stop": _a("stop", ("sessionId",)),
            "status": _a("status"),
            "import": _a(
                "import", ("sessionId", "title", "providerId", "meetingUrl", "speakerLabel")
            ),
            "summarize": _a("summarize", ("sessionId",)),
        },
    ),
    "sessions_spawn": ToolDisplaySpec(
        "🧑‍🔧",
        "Sub-agent",
        detail_keys=(
            "label",
            "taskName",
            "agentId",
            "model",
            "thinking",
            "runTimeoutSeconds",
            "cleanup",
        ),
    ),
    "agents_wait": ToolDisplaySpec(
        "⏳",
        "Wait for Agents",
        detail_keys=("ids", "timeoutSeconds"),
    ),
    "structured_output": ToolDisplaySpec(
        "🧾",
        "Structured Output",
        detail_keys=("result",),
    ),
    "subagents": ToolDisplaySpec(
        "🤖",
        "Subagents",
        actions={
            "list": _a("list", ("recentMinutes",)),
            "kill": _a("kill", ("target",)),
            "steer": _a("steer", ("target",)),
        },
    ),
    "agents_list": ToolDisplaySpec(
        "🧭",
        "Agents",
        detail_keys=(),
    ),
    "memory_search": ToolDisplaySpec(
        "🧠",
        "Memory Search",
        detail_keys=("query",),
    ),
    "memory_get": ToolDisplaySpec(
        "📓",
        "Memory Get",
        detail_keys=("path", "from", "lines"),
    ),
    "web_search": ToolDisplaySpec(
        "🔎",
        "Web Search",
        detail_keys=("query", "count"),
    ),
    "web_fetch": ToolDisplaySpec(
        "📄",
        "Web Fetch",
        detail_keys=("url", "extractMode", "maxChars"),
    ),
    "code_execution": ToolDisplaySpec(
        "🧮",
        "Code Execution",
        detail_keys=("task",),
    ),
    "message": ToolDisplaySpec(
        "✉️",
        "Message",
        actions={
            "send": _a("send", ("provider", "to", "media", "replyTo", "threadId")),
            "poll": _a("poll", ("provider", "to", "pollQuestion")),
            "react": _a("react", ("provider", "to", "messageId", "emoji", "remove")),
            "reactions": _a("reactions", ("provider", "to", "messageId", "limit")),
            "read": _a("read", ("provider", "to", "limit")),
            "edit": _a("edit", ("provider", "to", "messageId")),
            "delete": _a("delete", ("provider", "to", "messageId")),
            "pin": _a("pin", ("provider", "to", "messageId")),
            "unpin": _a("unpin", ("provider", "to", "messageId")),
            "list-pins": _a("list pins", ("provider", "to")),
            "permissions": _a("permissions", ("provider", "channelId", "to")),
            "thread-create": _a("thread create", ("provider", "channelId", "threadName")),
            "thread-list": _a("thread list", ("provider", "guildId", "channelId")),
            "thread-reply": _a("thread reply", ("provider", "channelId", "messageId")),
            "search": _a("search", ("provider", "guildId", "query")),
            "sticker": _a("sticker", ("provider", "to", "stickerId")),
            "member-info": _a("member", ("provider", "guildId", "userId")),
            "role-info": _a("roles", ("provider", "guildId")),
            "emoji-list": _a("emoji list", ("provider", "guildId")),
            "emoji-upload": _a("emoji upload", ("provider", "guildId", "emojiName")),
            "sticker-upload": _a("sticker upload", ("provider", "guildId", "stickerName")),
            "role-add": _a("role add", ("provider", "guildId", "userId", "roleId")),
            "role-remove": _a("role remove", ("provider", "guildId", "userId", "roleId")),
            "channel-info": _a("channel", ("provider", "channelId")),
            "channel-list": _a("channels", ("provider", "guildId")),
            "voice-status": _a("voice", ("provider", "guildId", "userId")),
            "event-list": _a("events", ("provider", "guildId")),
            "event-create": _a("event create", ("provider", "guildId", "eventName")),
            "timeout": _a("timeout", ("provider", "guildId", "userId")),
            "kick": _a("kick", ("provider", "guildId", "userId")),
            "ban": _a("ban", ("provider", "guildId", "userId")),
        },
    ),
    "apply_patch": ToolDisplaySpec(
        "🩹",
        "Apply Patch",
        detail_keys=(),
    ),
    "image": ToolDisplaySpec(
        "🖼️",
        "Image",
        detail_keys=("path", "paths", "url", "urls", "prompt", "model"),
    ),
    "view_image": ToolDisplaySpec(
        "🖼️",
        "View Image",
        detail_keys=("path", "paths", "url", "urls", "prompt", "model"),
    ),
    "image_generate": ToolDisplaySpec(
        "🎨",
        "Image Generation",
        actions={
            "generate": _a("generate", ("prompt", "model", "count", "resolution", "aspectRatio")),
            "list": _a("list", ("provider", "model")),
        },
    ),
    "music_generate": ToolDisplaySpec(
        "🎵",
        "Music Generation",
        actions={
            "generate": _a(
                "generate", ("prompt", "model", "durationSeconds", "format", "instrumental")
            ),
            "list": _a("list", ("provider", "model")),
        },
    ),
    "video_generate": ToolDisplaySpec(
        "🎬",
        "Video Generation",
        actions={
            "generate": _a(
                "generate",
                (
                    "prompt",
                    "model",
                    "durationSeconds",
                    "resolution",
                    "aspectRatio",
                    "audio",
                    "watermark",
                ),
            ),
            "list": _a("list", ("provider", "model")),
        },
    ),
    "pdf": ToolDisplaySpec(
        "📑",
        "PDF",
        detail_keys=("path", "paths", "url", "urls", "prompt", "pageRange", "model"),
    ),
    "sessions_yield": ToolDisplaySpec(
        "⏸️",
        "Yield",
    ),
    "tts": ToolDisplaySpec(
        "🔊",
        "TTS",
        detail_keys=("text", "channel"),
    ),
}
