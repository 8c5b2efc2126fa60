"""Did a successful send land in the exact conversation the current turn came from?

A message-tool send that reaches the turn's own source conversation doubles as the turn's
visible reply, so the host must not send the automatic reply again. The check is strict:
same channel and account, a target equal to the current target (after the channel's own
normalization), and a thread placement that provably matches the current thread.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from clawharness._json import JsonObject, JsonValue
from clawharness.delivery._coerce import (
    as_list,
    as_record,
    field_of,
    is_finite_number,
    normalize_optional_lowercase,
    normalize_optional_string,
    read_trimmed_string_alias,
    strip_whitespace,
)
from clawharness.delivery.channels import (
    ToolContext,
    get_channel_hooks,
    normalize_account_id,
    normalize_target_for_provider,
)
from clawharness.delivery.facts import MessageDeliveryFact, project_plugin_message_delivery_fact
from clawharness.delivery.messaging_tools import is_message_tool_send_action_name

__all__ = ["SourceReplyRoute", "ToolContext", "is_delivered_current_source_send"]

ThreadPlacement = Literal["match", "mismatch", "unknown"]

_THREAD_IDENTITY_SUFFIX = re.compile(r":(?:topic|direct-topic):[0-9]+\Z", re.IGNORECASE)
_TARGET_KIND_PREFIX = re.compile(
    r"^(?:channel|conversation|dm|group|room|thread|user):", re.IGNORECASE | re.ASCII
)


@dataclass(frozen=True, slots=True)
class SourceReplyRoute:
    """A delivered message action and the turn context to compare it against."""

    action: str
    channel: str | None
    #: the message action's arguments (`target`, `threadId`, `topLevel`, ...)
    action_params: Mapping[str, JsonValue]
    tool_context: ToolContext
    account_id: str | None = None
    current_account_id: str | None = None
    session_key: str | None = None
    #: the plugin's delivery receipt, when the send returned one
    delivered_payload: JsonValue = None


def _message_id_value(value: str | int | float | None) -> str | None:
    if is_finite_number(value):
        number = float(value)
        return str(int(number)) if number.is_integer() else repr(number)
    return normalize_optional_string(value)


def _current_thread_id(route: SourceReplyRoute) -> str | None:
    return normalize_optional_string(route.tool_context.current_thread_ts)


def _delivery_receipt(route: SourceReplyRoute) -> JsonObject | None:
    payload = route.delivered_payload
    receipt = as_record(field_of(field_of(payload, "result"), "receipt"))
    return receipt if receipt is not None else as_record(field_of(payload, "receipt"))


def _delivered_thread_placement(
    route: SourceReplyRoute, current_thread: str | None
) -> ThreadPlacement | None:
    receipt = _delivery_receipt(route)
    if receipt is None:
        return None
    delivered_thread = normalize_optional_string(receipt.get("threadId"))
    if delivered_thread:
        return "match" if delivered_thread == current_thread else "mismatch"
    delivered_reply_to = normalize_optional_string(receipt.get("replyToId"))
    if delivered_reply_to:
        current_message = _message_id_value(route.tool_context.current_message_id)
        matched = delivered_reply_to in (current_thread, current_message)
        return "match" if matched else "mismatch"
    return "mismatch" if current_thread else "match"


def _thread_placement(route: SourceReplyRoute) -> ThreadPlacement:
    current_thread = _current_thread_id(route)
    delivered = _delivered_thread_placement(route, current_thread)
    if delivered is not None:
        return delivered
    params = route.action_params
    if params.get("topLevel") is True:
        return "mismatch" if current_thread else "match"
    for key in ("threadId", "messageThreadId"):
        if key not in params:
            continue
        explicit = normalize_optional_string(params[key])
        if not explicit:
            return "mismatch" if current_thread else "match"
        return "match" if explicit == current_thread else "mismatch"
    # A thread-scoped turn with no thread evidence cannot prove where the send landed.
    return "unknown" if current_thread else "match"


def _has_current_source_context(route: SourceReplyRoute) -> bool:
    if normalize_optional_string(route.session_key) is None:
        return False
    account = normalize_optional_string(route.account_id)
    if account:
        current_account = normalize_optional_string(route.current_account_id)
        if not current_account or normalize_account_id(account) != normalize_account_id(
            current_account
        ):
            return False
    current_channel = normalize_optional_lowercase(route.tool_context.current_channel_provider)
    return bool(current_channel) and current_channel == normalize_optional_lowercase(route.channel)


def _current_targets(route: SourceReplyRoute) -> list[str]:
    context = route.tool_context
    candidates = (context.current_messaging_target, context.current_channel_id)
    return [t for t in (normalize_optional_string(c) for c in candidates) if t]


def _matches_current_target(
    route: SourceReplyRoute, params: Mapping[str, JsonValue], placement: ThreadPlacement
) -> bool:
    current = _current_targets(route)
    if not current:
        return False
    requested = read_trimmed_string_alias(params, ("target", "to", "channelId", "chatId"))
    if not requested or placement == "mismatch":
        return False
    hooks = get_channel_hooks(route.channel)
    threaded = requested
    thread_id = read_trimmed_string_alias(params, ("threadId", "messageThreadId"))
    if thread_id and hooks is not None and hooks.resolve_current_channel_id is not None:
        resolved = hooks.resolve_current_channel_id(requested, thread_id)
        threaded = normalize_optional_string(resolved) or requested
    matcher = hooks.matches_tool_context_target if hooks is not None else None
    if placement == "match" and matcher is not None:
        context = route.tool_context
        if matcher(requested, context) or (threaded != requested and matcher(threaded, context)):
            return True
    normalized = {
        n
        for n in (
            normalize_target_for_provider(route.channel, target, hooks)
            for target in (requested, threaded)
        )
        if n
    }
    return any(
        normalize_target_for_provider(route.channel, target, hooks) in normalized
        for target in current
    )


def _is_current_source_conversation(route: SourceReplyRoute) -> bool:
    if route.action not in ("send", "poll") or not _has_current_source_context(route):
        return False
    return _matches_current_target(route, route.action_params, _thread_placement(route))


def _is_exact_current_source_conversation(route: SourceReplyRoute) -> bool:
    return _thread_placement(route) == "match" and _is_current_source_conversation(route)


def _reported_thread_ids(receipt: JsonObject | None) -> list[str]:
    if receipt is None:
        return []
    found: dict[str, None] = {}
    aggregate = normalize_optional_string(receipt.get("threadId"))
    if aggregate:
        found[aggregate] = None
    parts = as_list(receipt.get("parts"))
    if parts is not None:
        for part in parts:
            thread = normalize_optional_string(field_of(part, "threadId"))
            if thread:
                found[thread] = None
    return list(found)


def _delivered_thread_matches(route: SourceReplyRoute) -> bool:
    current_thread = _current_thread_id(route)
    receipt = _delivery_receipt(route)
    reported = _reported_thread_ids(receipt)
    if reported:
        return bool(current_thread) and all(thread == current_thread for thread in reported)
    reply_to = normalize_optional_string(receipt.get("replyToId") if receipt is not None else None)
    if reply_to:
        current_message = _message_id_value(route.tool_context.current_message_id)
        return reply_to in (current_thread, current_message)
    # A thread-scoped source is not proven delivered unless the receipt reports it.
    return not current_thread


def _chat_identity(value: str, channel: str | None) -> str:
    trimmed = strip_whitespace(value)
    provider = normalize_optional_lowercase(channel)
    if provider and trimmed.lower().startswith(f"{provider}:"):
        trimmed = strip_whitespace(trimmed[len(provider) + 1 :])
    without_kind = strip_whitespace(_TARGET_KIND_PREFIX.sub("", trimmed, count=1))
    return strip_whitespace(_THREAD_IDENTITY_SUFFIX.sub("", without_kind, count=1)).lower()


def _matches_delivered_target(route: SourceReplyRoute, target: str) -> bool:
    if _matches_current_target(route, {"target": target}, "match"):
        return True
    # A recipient that reports its own topic must match at full identity (above).
    if _THREAD_IDENTITY_SUFFIX.search(strip_whitespace(target)):
        return False
    current = _current_targets(route)
    hooks = get_channel_hooks(route.channel)
    delivered = normalize_target_for_provider(route.channel, target, hooks)
    if not current or not delivered:
        return False
    delivered_chat = _chat_identity(delivered, route.channel)
    for candidate in current:
        normalized = normalize_target_for_provider(route.channel, candidate, hooks)
        if normalized is not None and _chat_identity(normalized, route.channel) == delivered_chat:
            return True
    return False


def _delivered_targets_agree(route: SourceReplyRoute, fact: MessageDeliveryFact | None) -> bool:
    targets = fact.delivered_targets if fact is not None else None
    if not targets:
        return True  # no reported recipients to contradict the requested route
    if not _delivered_thread_matches(route):
        return False
    return all(_matches_delivered_target(route, target) for target in targets)


def is_delivered_current_source_send(route: SourceReplyRoute) -> bool:
    """True when a send (or poll) that did not report failure reached the current source.

    Only the send-like actions are classified here; replies and reactions address a
    message rather than a conversation and are never treated as source sends.
    """
    fact = project_plugin_message_delivery_fact(route.delivered_payload)
    if fact is not None and fact.status != "settled":
        return False
    if not _delivered_targets_agree(route, fact):
        return False
    action = strip_whitespace(route.action).lower()
    if action in ("react", "reply", "thread-reply"):
        return False
    if not (is_message_tool_send_action_name(route.action) or route.action == "poll"):
        return False
    return _is_exact_current_source_conversation(dataclasses.replace(route, action="send"))
