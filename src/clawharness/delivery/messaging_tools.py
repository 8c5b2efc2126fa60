"""Which tools send messages, and whether a messaging tool result proves a delivery.

`is_delivered_messaging_tool_result` is the fallback for messaging results that carry no
`details.messageDelivery` fact. It owns tool eligibility (core conversation tools, the
`message` tool and channel-plugin tools) and interprets legacy receipt envelopes.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from clawharness._json import JsonValue
from clawharness.delivery._coerce import (
    normalize_optional_lowercase,
    normalize_optional_string,
    normalize_status,
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
    "MessagingToolCall",
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


@dataclass(frozen=True, slots=True)
class MessagingToolCall:
    """A finished tool call, as the delivery fallback reads it."""

    #: the tool's name; None stands for the `message` tool (as in the original)
    tool_name: str | None = None
    args: Mapping[str, JsonValue] = field(default_factory=dict)
    result: JsonValue = None
    #: a second result whose receipts count too (the original's `hookResult`)
    hook_result: JsonValue = None
    is_error: bool = False
    #: count a plugin send only when it reports a platform message id
    require_plugin_delivery_id: bool = False


def is_message_tool_send_action_name(action: str | None) -> bool:
    """True when a `message` action sends or uploads user-visible content (case-sensitive)."""
    return (normalize_optional_string(action) or "") in _SEND_ACTIONS


def is_message_tool_conversation_create_action_name(action: str | None) -> bool:
    """True when a `message` action creates a visible destination conversation."""
    return (normalize_optional_lowercase(action) or "") in _CONVERSATION_CREATE_ACTIONS


def is_plugin_native_messaging_tool(tool_name: str) -> bool:
    """`message`, or a tool named after a registered channel that exposes actions."""
    if tool_name == "message":
        return True
    hooks = get_channel_hooks(normalize_channel_id(tool_name))
    return hooks is not None and hooks.has_actions


def is_messaging_tool(tool_name: str) -> bool:
    """True for the core messaging tools and channel-plugin messaging tools."""
    return tool_name in CORE_MESSAGING_TOOLS or is_plugin_native_messaging_tool(tool_name)


def _plugin_send_target(tool_name: str, args: Mapping[str, JsonValue]) -> bool:
    hooks = get_channel_hooks(normalize_channel_id(tool_name))
    if hooks is None or hooks.extract_tool_send_target is None:
        return False
    return bool(hooks.extract_tool_send_target(args))


def is_messaging_tool_send_action(tool_name: str, args: Mapping[str, JsonValue] | None) -> bool:
    """True when this tool invocation is an outbound send.

    `args` is None when the call's arguments were not an object: the core send tools
    still send, a `message` call then names no action, and a channel tool sends nothing.
    """
    if tool_name in ("sessions_send", "conversations_send", "conversations_turn"):
        return True
    if tool_name == "message":
        action = normalize_optional_string(args.get("action")) if args is not None else None
        return (action or "") in _SEND_ACTIONS
    return args is not None and _plugin_send_target(tool_name, args)


def is_messaging_tool_delivery_action(tool_name: str, args: Mapping[str, JsonValue]) -> bool:
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


def is_delivered_messaging_tool_result(call: MessagingToolCall) -> bool:
    """True only when a messaging tool call's result proves a real visible delivery."""
    args = call.args
    if args.get("dryRun") is True:
        return False
    tool = normalize_tool_policy_name("message" if call.tool_name is None else call.tool_name)
    if tool in _CONVERSATION_TOOLS:
        details = read_tool_result_details(call.result)
        status = details.get("status") if details is not None else None
        # Waiting for a peer reply can fail after the channel send has succeeded.
        return status == "sent" or (
            tool == "conversations_turn" and status in ("replied", "timeout")
        )
    if not is_plugin_native_messaging_tool(tool):
        return False
    action = normalize_status(args.get("action"))
    results = (call.result, call.hook_result)

    def has(signal: PluginSignal) -> bool:
        return any(plugin_envelope_has(item, signal) for item in results)

    if has("dryRun"):
        return False
    if call.require_plugin_delivery_id and not has("deliveryId"):
        return False
    if has("partial"):
        return True
    if action and is_message_tool_conversation_create_action_name(action) and has("conversation"):
        return True
    if action == "broadcast" and any(plugin_broadcast_has_delivery(item) for item in results):
        return True
    if call.is_error or any(
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
