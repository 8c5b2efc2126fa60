"""Which tools send messages, and whether a messaging tool result proves a delivery.

`is_delivered_messaging_tool_result` is the fallback for messaging results that carry no
`details.messageDelivery` fact. It owns tool eligibility (core conversation tools, the
`message` tool and channel-plugin tools) and interprets legacy receipt envelopes.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from clawharness._jsvalue import is_nullish
from clawharness.delivery._coerce import (
    as_record,
    js_truthy,
    normalize_optional_lowercase,
    normalize_optional_string,
    normalize_status,
    prop,
)
from clawharness.delivery.channels import get_channel_hooks, normalize_channel_id
from clawharness.delivery.envelope import PluginSignal, plugin_envelope_has
from clawharness.delivery.facts import plugin_broadcast_has_delivery
from clawharness.delivery.tool_results import (
    is_tool_result_error,
    normalize_tool_policy_name,
    read_tool_result_details,
)

__all__ = [
    "CHANNEL_MESSAGE_ACTION_NAMES",
    "CORE_MESSAGING_TOOLS",
    "is_delivered_messaging_tool_result",
    "is_message_tool_conversation_create_action_name",
    "is_message_tool_send_action_name",
    "is_messaging_tool",
    "is_messaging_tool_delivery_action",
    "is_messaging_tool_send_action",
    "is_plugin_native_messaging_tool",
]

CORE_MESSAGING_TOOLS = frozenset(
    {"sessions_send", "conversations_send", "conversations_turn", "message"}
)
_CONVERSATION_TOOLS = frozenset({"conversations_send", "conversations_turn"})
_SEND_ACTIONS = frozenset(
    {"send", "thread-reply", "sendWithEffect", "sendAttachment", "upload-file"}
)
_READ_ONLY_ACTIONS = frozenset(
    {
        "read",
        "reactions",
        "list-pins",
        "permissions",
        "thread-list",
        "search",
        "sticker-search",
        "member-info",
        "role-info",
        "emoji-list",
        "channel-info",
        "channel-list",
        "voice-status",
        "event-list",
        "download-file",
    }
)
#: the closed, core-owned vocabulary of `message` tool actions
CHANNEL_MESSAGE_ACTION_NAMES: tuple[str, ...] = (
    "send",
    "broadcast",
    "poll",
    "poll-vote",
    "react",
    "reactions",
    "read",
    "edit",
    "unsend",
    "reply",
    "sendWithEffect",
    "renameGroup",
    "setGroupIcon",
    "addParticipant",
    "removeParticipant",
    "leaveGroup",
    "sendAttachment",
    "delete",
    "pin",
    "unpin",
    "list-pins",
    "permissions",
    "thread-create",
    "thread-list",
    "thread-reply",
    "search",
    "sticker",
    "sticker-search",
    "member-info",
    "role-info",
    "emoji-list",
    "emoji-upload",
    "sticker-upload",
    "role-add",
    "role-remove",
    "channel-info",
    "channel-list",
    "channel-create",
    "channel-edit",
    "channel-delete",
    "channel-move",
    "category-create",
    "category-edit",
    "category-delete",
    "topic-create",
    "topic-edit",
    "voice-status",
    "event-list",
    "event-create",
    "timeout",
    "kick",
    "ban",
    "set-profile",
    "set-presence",
    "download-file",
    "upload-file",
)
_MUTATION_ACTIONS = frozenset(
    a for a in CHANNEL_MESSAGE_ACTION_NAMES if a not in _READ_ONLY_ACTIONS
)
_CONVERSATION_CREATE_ACTIONS = frozenset(
    {"thread-create", "topic-create", "threadcreate", "createforumtopic"}
)


def is_message_tool_send_action_name(action: Any) -> bool:
    """True when a `message` action sends or uploads user-visible content (case-sensitive)."""
    return (normalize_optional_string(action) or "") in _SEND_ACTIONS


def is_message_tool_conversation_create_action_name(action: Any) -> bool:
    """True when a `message` action creates a visible destination conversation."""
    return (normalize_optional_lowercase(action) or "") in _CONVERSATION_CREATE_ACTIONS


def is_plugin_native_messaging_tool(tool_name: Any) -> bool:
    """`message`, or a tool named after a registered channel that exposes actions."""
    if tool_name == "message":
        return True
    hooks = get_channel_hooks(normalize_channel_id(tool_name))
    return hooks is not None and hooks.has_actions


def is_messaging_tool(tool_name: Any) -> bool:
    """True for the core messaging tools and channel-plugin messaging tools."""
    if isinstance(tool_name, str) and tool_name in CORE_MESSAGING_TOOLS:
        return True
    return is_plugin_native_messaging_tool(tool_name)


def _plugin_send_target(tool_name: Any, args: Mapping[str, Any]) -> bool:
    hooks = get_channel_hooks(normalize_channel_id(tool_name))
    if hooks is None or hooks.extract_tool_send_target is None:
        return False
    return js_truthy(hooks.extract_tool_send_target(args))


def is_messaging_tool_send_action(tool_name: Any, args: Any) -> bool:
    """True when this tool invocation is an outbound send."""
    action = normalize_optional_string(prop(args, "action")) or ""
    if tool_name in ("sessions_send", "conversations_send", "conversations_turn"):
        return True
    if tool_name == "message":
        return action in _SEND_ACTIONS
    record = as_record(args)
    return record is not None and _plugin_send_target(tool_name, record)


def is_messaging_tool_delivery_action(tool_name: Any, args: Mapping[str, Any]) -> bool:
    """True when a messaging invocation can create visible outbound delivery."""
    if tool_name in _CONVERSATION_TOOLS:
        return True
    if tool_name == "message":
        action = normalize_optional_string(args.get("action")) or ""
        return action in _MUTATION_ACTIONS or is_message_tool_conversation_create_action_name(
            action
        )
    hooks = get_channel_hooks(normalize_channel_id(tool_name))
    delivery_hook = hooks.is_tool_delivery_action if hooks is not None else None
    if delivery_hook is not None and delivery_hook(args):
        return True
    return is_messaging_tool_send_action(tool_name, args)


def is_delivered_messaging_tool_result(params: Any) -> bool:
    """True only when a messaging tool result proves a real visible delivery.

    `params` is the original's object: `toolName`, `args`, `result`, `hookResult`,
    `isError` and `requirePluginDeliveryId`.
    """
    args = as_record(prop(params, "args")) or {}
    if args.get("dryRun") is True:
        return False
    tool_name = prop(params, "toolName")
    tool = normalize_tool_policy_name("message" if is_nullish(tool_name) else tool_name)
    result = prop(params, "result")
    if tool in _CONVERSATION_TOOLS:
        details = read_tool_result_details(result)
        status = details.get("status") if details is not None else None
        # Waiting for a peer reply can fail after the channel send has succeeded.
        return status == "sent" or (
            tool == "conversations_turn" and status in ("replied", "timeout")
        )
    if not is_plugin_native_messaging_tool(tool):
        return False
    action = normalize_status(args.get("action"))
    results = (result, prop(params, "hookResult"))

    def has(signal: PluginSignal) -> bool:
        return any(plugin_envelope_has(item, signal) for item in results)

    if has("dryRun"):
        return False
    if js_truthy(prop(params, "requirePluginDeliveryId")) and not has("deliveryId"):
        return False
    if has("partial"):
        return True
    if action and is_message_tool_conversation_create_action_name(action) and has("conversation"):
        return True
    if action == "broadcast" and any(plugin_broadcast_has_delivery(item) for item in results):
        return True
    if js_truthy(prop(params, "isError")) or any(
        is_tool_result_error(item) or plugin_envelope_has(item, "failure") for item in results
    ):
        return False
    non_delivery = has("nonDelivery")
    no_op = has("noOp")
    if (
        not non_delivery
        and not no_op
        and is_messaging_tool_delivery_action(tool, args)
        and action != "broadcast"
        and has("ok")
    ):
        return True
    return not non_delivery and not no_op and has("delivery")
