"""Which tool calls a blind retry may safely repeat.

A retry after a failed attempt must not repeat side effects. Only tools whose contract
proves they are read-only qualify: a fixed set of reader tools, plus read-only actions of
multi-action tools (`message` reading a thread, `browser` taking a snapshot, …). Shell
tools never qualify for replay, however harmless the command looks.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Final, TypeAlias

from clawharness._json import JsonValue
from clawharness._text import BLANK, BLANK_CLASS, trim
from clawharness.names.tool_groups import normalize_tool_name

__all__ = [
    "REPLAY_SAFE_TOOL_NAMES",
    "is_agent_tool_replay_safe",
    "is_mutating_tool_call",
    "is_plain_read_only_shell_command",
    "is_replay_safe_tool_call",
]

#: tool instances a blind retry may repeat, whatever their arguments
REPLAY_SAFE_TOOL_NAMES: Final = frozenset(
    [
        "read",
        "search",
        "find",
        "grep",
        "glob",
        "ls",
        "web_search",
        "web_fetch",
        "x_search",
        "memory_get",
        "sessions_list",
        "sessions_history",
        "sessions_search",
        "agents_list",
        "conversations_list",
        "get_goal",
        "tool_search",
        "tool_describe",
        "view_image",
    ]
)
_CALL_SAFE_TOOL_NAMES: Final = frozenset(
    [
        "agents_list",
        "conversations_list",
        "find",
        "get_goal",
        "glob",
        "grep",
        "view_image",
        "ls",
        "memory_get",
        "pdf",
        "read",
        "search",
        "sessions_history",
        "sessions_list",
        "sessions_search",
        "tool_describe",
        "tool_search",
        "web_fetch",
        "web_search",
        "x_search",
    ]
)
_READ_ONLY_ACTIONS: Final = frozenset(
    [
        "get",
        "list",
        "read",
        "status",
        "show",
        "fetch",
        "search",
        "query",
        "view",
        "poll",
        "log",
        "inspect",
        "check",
        "probe",
        "runs",
    ]
)
_PROCESS_MUTATING: Final = frozenset(
    ["write", "send_keys", "submit", "paste", "kill", "clear", "remove"]
)
_PROCESS_REPLAY_SAFE: Final = frozenset({"list", "log"})
_MESSAGE_READ_ONLY: Final = frozenset(
    [
        "reactions",
        "read",
        "list_pins",
        "permissions",
        "thread_list",
        "search",
        "sticker_search",
        "member_info",
        "role_info",
        "emoji_list",
        "channel_info",
        "channel_list",
        "voice_status",
        "event_list",
    ]
)
_BROWSER_READ_ONLY: Final = frozenset({"console", "profiles", "snapshot", "status", "tabs"})
_MOBILE_UI_SAFE: Final = frozenset({"observe"})
_GATEWAY_SAFE: Final = frozenset({"config.get", "config.schema.lookup"})
_NODES_SAFE: Final = frozenset({"status", "describe", "pending"})
_COMPUTER_OBSERVATIONS: Final = frozenset(
    [
        "screenshot",
        "wait",
        "list_apps",
        "list_windows",
        "get_accessibility_tree",
        "get_cursor_position",
        "get_window_state",
        "zoom",
        "get_browser_state",
        "get_recording_state",
    ]
)
_READ_ONLY_SHELL: Final = frozenset(
    ["cat", "grep", "head", "ls", "pwd", "rg", "stat", "tail", "wc"]
)
_GH_PR_READ_ONLY: Final = frozenset({"checks", "diff", "list", "status", "view"})
_GH_ISSUE_READ_ONLY: Final = frozenset({"list", "status", "view"})
_UNSAFE_RG_FLAGS: Final = frozenset({"--hostname-bin", "--pre", "--pre-glob", "--search-zip", "-z"})
_UNSAFE_RG_VALUE_FLAGS: Final = ("--hostname-bin", "--pre", "--pre-glob")
_SHELL_EXPANSION: Final = "$*?[]{}~"
_SPACE_DASH_RE: Final = re.compile(rf"[{BLANK_CLASS[1:-1]}-]+", re.ASCII)
_SED_PRINT_RE: Final = re.compile(r"^(\d+|\$)(,(\d+|\$))?p\Z", re.ASCII)
_SHELL_META_RE: Final = re.compile(r"[;&|<>\n\r`]", re.ASCII)
_WEB_FLAG_RE: Final = re.compile(r"^-[a-z]*w[a-z]*(?:=[^\n\r\u2028\u2029]*)?\Z", re.ASCII)

Record: TypeAlias = Mapping[str, JsonValue]
#: tool-call arguments as JSON; any mapping is read like the JSON object it stands for
ToolArgs: TypeAlias = JsonValue | Record


def _lower(value: JsonValue) -> str:
    """A string trimmed and lower-cased; "" for other values."""
    return trim(value).lower() if isinstance(value, str) else ""


def _action_name(value: JsonValue) -> str | None:
    normalized = _lower(value)
    return (_SPACE_DASH_RE.sub("_", normalized) or None) if normalized else None


def _is_automations(name: str) -> bool:
    return name in ("automations", "cron")


def _is_computer_observation(action: str | None, dialog_action: JsonValue) -> bool:
    return action is not None and (
        action in _COMPUTER_OBSERVATIONS
        or (action == "browser_dialog" and dialog_action == "inspect")
    )


def _shell_command(record: Record | None) -> str | None:
    if record is None:
        return None
    command = record.get("command")
    if command is None:
        command = record.get("cmd")
    if not isinstance(command, str):
        return None
    return command.strip() or None


def _tokenize_simple(command: str) -> list[str] | None:
    if _SHELL_META_RE.search(command) or "\\" in command:
        return None
    if any(char in command for char in _SHELL_EXPANSION):
        return None
    tokens: list[str] = []
    current = ""
    quote = ""
    for char in command:
        if quote:
            if char == quote:
                quote = ""
            else:
                current += char
            continue
        if char in ("'", '"'):
            quote = char
            continue
        if char in BLANK:
            if current:
                tokens.append(current)
                current = ""
            continue
        current += char
    if quote:
        return None
    if current:
        tokens.append(current)
    return tokens or None


def _is_read_only_sed(tokens: list[str]) -> bool:
    args = tokens[1:]
    if any(t == "--in-place" or t.startswith("--in-place=") for t in args):
        return False
    if any(t.startswith("-") and t != "-" and "i" in t for t in args):
        return False
    if any(t in ("-e", "--expression") for t in args):
        return False
    quiet = False
    expression: str | None = None
    for token in args:
        if token in ("--quiet", "--silent"):
            quiet = True
            continue
        if token.startswith("-") and token != "-":
            if "n" in token:
                quiet = True
            continue
        expression = token
        break
    return quiet and expression is not None and bool(_SED_PRINT_RE.search(expression))


def _is_read_only_gh(tokens: list[str]) -> bool:
    for token in tokens:
        lowered = _lower(token)
        if lowered == "--web" or lowered.startswith("--web=") or _WEB_FLAG_RE.search(lowered):
            return False
    area = _lower(tokens[1] if len(tokens) > 1 else None)
    action = _lower(tokens[2] if len(tokens) > 2 else None)
    if area == "search":
        return len(action) > 0
    if area == "pr":
        return action in _GH_PR_READ_ONLY
    if area == "issue":
        return action in _GH_ISSUE_READ_ONLY
    return False


def is_plain_read_only_shell_command(command: str | None) -> bool:
    """True only for a plain read-only command with no shell metacharacters or expansion."""
    if not command:
        return False
    tokens = _tokenize_simple(command)
    if not tokens:
        return False
    executable = _lower(tokens[0])
    if executable == "rg" and any(
        _lower(t) in _UNSAFE_RG_FLAGS
        or any(_lower(t).startswith(f"{flag}=") for flag in _UNSAFE_RG_VALUE_FLAGS)
        for t in tokens
    ):
        return False
    if executable in _READ_ONLY_SHELL:
        return True
    if executable == "sed":
        return _is_read_only_sed(tokens)
    if executable == "gh":
        return _is_read_only_gh(tokens)
    return False


def _args_view(args: ToolArgs) -> tuple[Record | None, str | None]:
    # (a dict is told apart in C, before the ABC's check in Python)
    record = args if isinstance(args, (dict, Mapping)) else None
    action = _action_name(record.get("action")) if record is not None else None
    return record, action


def _dialog_action(record: Record | None) -> JsonValue:
    return record.get("dialogAction") if record is not None else None


#: tools that always change state
_ALWAYS_MUTATING: Final = frozenset({
    "write", "edit", "apply_patch", "sessions_spawn", "sessions_send", "conversations_send",
    "conversations_turn", "create_goal", "update_goal",
})

#: tools whose action decides: (the call's action, its arguments) -> mutating
_BY_ACTION: Final[dict[str, Callable[[str | None, Record | None], bool]]] = {
    "process": lambda action, _r: action is not None and action in _PROCESS_MUTATING,
    "message": lambda action, _r: action is None or action not in _MESSAGE_READ_ONLY,
    "sessions": lambda action, _r: action != "group_list",
    "computer": lambda action, record: not _is_computer_observation(
        action, _dialog_action(record)),
    "mobile_ui": lambda action, _r: action is None or action not in _MOBILE_UI_SAFE,
    "subagents": lambda action, _r: action in ("cancel", "kill", "steer"),
    "session_status": lambda _a, record: _has_model(record),
    "gateway": lambda action, _r: action is None or action not in _GATEWAY_SAFE,
    "portal": lambda action, _r: action != "list",
    "theme": lambda action, _r: action not in ("list", "get"),
    "nodes": lambda action, _r: action is None or action not in _NODES_SAFE,
}


def is_mutating_tool_call(tool_name: str, args: ToolArgs) -> bool:
    """True when the call may change state (writes, sends, non-read-only shell, …)."""
    if tool_name in _CALL_SAFE_TOOL_NAMES:  # a reader by name, whatever its arguments
        return False
    name = _lower(tool_name)
    if name in _ALWAYS_MUTATING:
        return True
    record, action = _args_view(args)
    if name in ("exec", "bash"):
        return not is_plain_read_only_shell_command(_shell_command(record))
    by_action = _BY_ACTION.get(name)
    if by_action is not None:
        return by_action(action, record)
    if _is_automations(name) or name == "canvas" or name.endswith("_actions"):
        return action is None or action not in _READ_ONLY_ACTIONS
    return name.startswith("message_") or "send" in name


def _has_model(record: Record | None) -> bool:
    model = record.get("model") if record is not None else None
    return isinstance(model, str) and len(model.strip()) > 0


#: tools whose action decides: (the call's name, action, record, arguments) -> replay-safe
_SAFE_BY_ACTION: Final[dict[str, Callable[[str, str | None, Record | None, ToolArgs], bool]]] = {
    "exec": lambda _n, _a, _r, _args: False,
    "bash": lambda _n, _a, _r, _args: False,
    "process": lambda _n, action, _r, _args: action is not None
    and action in _PROCESS_REPLAY_SAFE,
    "message": lambda _n, action, _r, _args: action is not None and action in _MESSAGE_READ_ONLY,
    "subagents": lambda _n, action, _r, _args: action is None or action == "list",
    "sessions": lambda _n, action, _r, _args: action == "group_list",
    "session_status": lambda name, _a, _r, args: not is_mutating_tool_call(name, args),
    "browser": lambda _n, action, _r, _args: action is not None and action in _BROWSER_READ_ONLY,
    "computer": lambda _n, action, record, _args: _is_computer_observation(
        action, _dialog_action(record)),
    "mobile_ui": lambda _n, action, _r, _args: action is not None and action in _MOBILE_UI_SAFE,
    "skill_workshop": lambda _n, action, _r, _args: action in ("list", "inspect", "read"),
    "transcripts": lambda _n, action, _r, _args: action == "status",
    "gateway": lambda _n, action, _r, _args: action is not None and action in _GATEWAY_SAFE,
    "portal": lambda _n, action, _r, _args: action == "list",
    "theme": lambda _n, action, _r, _args: action in ("list", "get"),
    "nodes": lambda _n, action, _r, _args: action is not None and action in _NODES_SAFE,
}


def is_replay_safe_tool_call(tool_name: str, args: ToolArgs) -> bool:
    """True only for calls whose structured contract proves they are read-only."""
    if tool_name in _CALL_SAFE_TOOL_NAMES:  # (spelled as listed: nothing to normalize)
        return True
    name = _lower(tool_name)
    if name in _CALL_SAFE_TOOL_NAMES:
        return True
    record, action = _args_view(args)
    by_action = _SAFE_BY_ACTION.get(name)
    if by_action is not None:
        return by_action(name, action, record, args)
    if _is_automations(name) or name == "canvas":
        return action is not None and action in _READ_ONLY_ACTIONS
    return False


def is_agent_tool_replay_safe(
    tool: object, declared_replay_safe: Callable[[object], bool | None] | None = None
) -> bool:
    """Whether a concrete tool (a mapping or an object with a `name`, such as a
    `ToolSpec`) is on the audited replay-safe list.

    `declared_replay_safe` lets the owner veto: returning False excludes the tool.
    """
    if declared_replay_safe is not None and declared_replay_safe(tool) is False:
        return False
    name = tool.get("name") if isinstance(tool, Mapping) else getattr(tool, "name", None)
    return normalize_tool_name(name if isinstance(name, str) else "") in REPLAY_SAFE_TOOL_NAMES
