"""Conformance adapters for delivery: the original's calls onto the typed delivery API.

Each adapter takes the vector's JavaScript-shaped arguments (camelCase objects,
`undefined`, values of any type), decodes them into the core's typed inputs, calls the
core, and encodes the result in the original's shape: camelCase keys in its order,
`undefined` where it returns or writes `undefined`. Where the original would throw a
`TypeError` for reading a property of `null`/`undefined`, the adapter throws it.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from clawharness._json import JsonValue
from clawharness.conformance.jsrules import (
    is_plain_object,
    js_get,
    js_optional_get,
    js_truthy,
    to_json_keeping_opaque,
)
from clawharness.conformance.jsvalue import UNDEFINED
from clawharness.delivery._coerce import as_record
from clawharness.delivery.facts import (
    MessageDeliveryFact,
    project_plugin_message_delivery_fact,
    read_embedded_message_delivery_fact,
)
from clawharness.delivery.messaging_tools import (
    MessagingToolCall,
    is_delivered_messaging_tool_result,
    is_messaging_tool,
    is_messaging_tool_send_action,
)
from clawharness.delivery.presentation import (
    ButtonsBlock,
    ControlAction,
    DividerBlock,
    InteractiveReply,
    MessagePresentation,
    PresentationBlock,
    PresentationButton,
    PresentationOption,
    TextBlock,
)
from clawharness.delivery.reply_content import ReplyPayload, parse_reply_payload
from clawharness.delivery.silent import is_silent_payload
from clawharness.delivery.source_reply import (
    MessagingToolSend,
    SourceReplyAttachment,
    SourceReplyPayload,
    TurnSource,
    extract_messaging_tool_source_reply_payload,
    is_delivered_messaging_tool_send_to_current_source,
)

__all__ = [
    "decode_reply_payload",
    "encode_message_delivery_fact",
    "encode_message_presentation",
    "encode_source_reply_payload",
    "extract_messaging_tool_source_reply_payload_js",
    "is_delivered_messaging_tool_result_js",
    "is_delivered_messaging_tool_send_to_current_source_js",
    "is_messaging_tool_js",
    "is_messaging_tool_send_action_js",
    "is_silent_payload_js",
    "project_plugin_message_delivery_fact_js",
    "read_embedded_message_delivery_fact_js",
]


def _string(value: Any) -> str | None:
    return value if isinstance(value, str) else None


# --- delivery facts -------------------------------------------------------------------


def encode_message_delivery_fact(fact: MessageDeliveryFact | None) -> Any:
    """The original's fact object (optional keys omitted), or `undefined` for no fact."""
    if fact is None:
        return UNDEFINED
    out: dict[str, Any] = {"status": fact.status}
    if fact.source_reply_delivered:
        out["sourceReplyDelivered"] = True
    if fact.primary_platform_message_id:
        out["primaryPlatformMessageId"] = fact.primary_platform_message_id
    if fact.delivered_targets:
        out["deliveredTargets"] = list(fact.delivered_targets)
    out["partialDelivery"] = fact.partial_delivery
    out["createdThreadIds"] = list(fact.created_thread_ids)
    return out


def read_embedded_message_delivery_fact_js(value: Any = UNDEFINED) -> Any:
    return encode_message_delivery_fact(read_embedded_message_delivery_fact(to_json_keeping_opaque(value)))


def project_plugin_message_delivery_fact_js(value: Any = UNDEFINED) -> Any:
    return encode_message_delivery_fact(project_plugin_message_delivery_fact(to_json_keeping_opaque(value)))


# --- messaging tools ------------------------------------------------------------------


def is_messaging_tool_js(tool_name: Any = UNDEFINED) -> bool:
    return isinstance(tool_name, str) and is_messaging_tool(tool_name)


def is_messaging_tool_send_action_js(tool_name: Any = UNDEFINED, args: Any = UNDEFINED) -> bool:
    js_get(args, "action")  # the original reads `args.action` first, whatever the tool
    if not isinstance(tool_name, str):
        return False
    return is_messaging_tool_send_action(tool_name, as_record(to_json_keeping_opaque(args)))


def _tool_name(value: Any) -> str | None:
    if value is None or value is UNDEFINED:
        return None  # the original's `toolName ?? "message"`
    # A name that is not a string normalises to no tool at all.
    return value if isinstance(value, str) else ""


def is_delivered_messaging_tool_result_js(params: Any = UNDEFINED) -> bool:
    args = js_get(params, "args")
    call = MessagingToolCall(
        tool_name=_tool_name(js_get(params, "toolName")),
        args=as_record(to_json_keeping_opaque(args)) or {},
        result=to_json_keeping_opaque(js_get(params, "result")),
        hook_result=to_json_keeping_opaque(js_get(params, "hookResult")),
        is_error=js_truthy(js_get(params, "isError")),
        require_plugin_delivery_id=js_truthy(js_get(params, "requirePluginDeliveryId")),
    )
    return is_delivered_messaging_tool_result(call)


# --- source replies -------------------------------------------------------------------


def is_delivered_messaging_tool_send_to_current_source_js(params: Any = UNDEFINED) -> bool:
    # A `to` or `threadId` that is not a string can never match a target or thread, so
    # it decodes as absent; `threadSuppressed` counts when truthy.
    send = js_get(params, "send")
    decoded_send = MessagingToolSend(
        provider=_string(js_optional_get(send, "provider")),
        to=_string(js_optional_get(send, "to")),
        account_id=_string(js_optional_get(send, "accountId")),
        thread_id=_string(js_optional_get(send, "threadId")),
        thread_suppressed=js_truthy(js_optional_get(send, "threadSuppressed")),
    )
    source = TurnSource(
        provider=_string(js_get(params, "currentProvider")),
        account_id=_string(js_get(params, "currentAccountId")),
        channel_id=_string(js_get(params, "currentChannelId")),
        messaging_target=_string(js_get(params, "currentMessagingTarget")),
        thread_id=_string(js_get(params, "currentThreadId")),
        session_key=_string(js_get(params, "sessionKey")),
    )
    delivered = to_json_keeping_opaque(js_get(params, "deliveredPayload"))
    return is_delivered_messaging_tool_send_to_current_source(decoded_send, source, delivered)


def _encode_action(action: ControlAction) -> dict[str, Any]:
    key = "command" if action.kind == "command" else "value"
    return {"type": action.kind, key: action.value}


def _encode_button(button: PresentationButton) -> dict[str, Any]:
    out: dict[str, Any] = {"label": button.label}
    if button.action is not None:
        out["action"] = _encode_action(button.action)
    if button.value is not None:
        out["value"] = button.value
    if button.url is not None:
        out["url"] = button.url
    if button.web_app_url is not None:
        out["webApp"] = {"url": button.web_app_url}
    if button.priority is not None:
        out["priority"] = button.priority
    if button.disabled:
        out["disabled"] = True
    if button.reusable:
        out["reusable"] = True
    out["style"] = UNDEFINED if button.style is None else button.style
    return out


def _encode_option(option: PresentationOption) -> dict[str, Any]:
    out: dict[str, Any] = {"label": option.label}
    if option.action is not None:
        out["action"] = _encode_action(option.action)
    out["value"] = option.value
    return out


def _encode_block(block: PresentationBlock) -> dict[str, Any]:
    if isinstance(block, TextBlock):
        return {"type": block.kind, "text": block.text}
    if isinstance(block, DividerBlock):
        return {"type": "divider"}
    if isinstance(block, ButtonsBlock):
        return {"type": "buttons", "buttons": [_encode_button(b) for b in block.buttons]}
    placeholder = UNDEFINED if block.placeholder is None else block.placeholder
    options = [_encode_option(option) for option in block.options]
    return {"type": "select", "placeholder": placeholder, "options": options}


def encode_message_presentation(presentation: MessagePresentation) -> dict[str, Any]:
    """`{title?, tone, blocks}`: the original always writes `tone`, even as `undefined`."""
    out: dict[str, Any] = {}
    if presentation.title is not None:
        out["title"] = presentation.title
    out["tone"] = UNDEFINED if presentation.tone is None else presentation.tone
    out["blocks"] = [_encode_block(block) for block in presentation.blocks]
    return out


def _encode_interactive(reply: InteractiveReply) -> dict[str, Any]:
    return {"blocks": [_encode_block(block) for block in reply.blocks]}


_ATTACHMENT_KEYS = (
    ("path", "path"),
    ("url", "url"),
    ("media_url", "mediaUrl"),
    ("file_path", "filePath"),
    ("mime_type", "mimeType"),
    ("name", "name"),
    ("trusted_local_media", "trustedLocalMedia"),
    ("duration_ms", "durationMs"),
    ("width", "width"),
    ("height", "height"),
)


def _encode_attachment(attachment: SourceReplyAttachment) -> dict[str, Any]:
    fields = ((key, getattr(attachment, name)) for name, key in _ATTACHMENT_KEYS)
    return {key: value for key, value in fields if value is not None}


def _js_channel_data(result: Any) -> Any:
    # The core copied the JSON view of `channelData`; the original copies the object
    # itself, members holding `undefined` included, so the copy is taken from the input.
    details = js_optional_get(result, "details")
    source_reply = js_optional_get(details, "sourceReply")
    source = source_reply if is_plain_object(source_reply) else details
    return dict(js_optional_get(source, "channelData"))


def encode_source_reply_payload(payload: SourceReplyPayload, result: Any) -> dict[str, Any]:
    """The original's payload object for `result`, keys in its order."""
    out: dict[str, Any] = {}
    if payload.text is not None:
        out["text"] = payload.text
    if payload.media_url is not None:
        out["mediaUrl"] = payload.media_url
    if payload.media_urls:
        out["mediaUrls"] = list(payload.media_urls)
    if payload.attachments:
        out["attachments"] = [_encode_attachment(a) for a in payload.attachments]
    if payload.trusted_local_media is not None:
        out["trustedLocalMedia"] = payload.trusted_local_media
    if payload.audio_as_voice:
        out["audioAsVoice"] = True
    if payload.presentation is not None:
        out["presentation"] = encode_message_presentation(payload.presentation)
    if payload.interactive is not None:
        out["interactive"] = _encode_interactive(payload.interactive)
    if payload.channel_data is not None:
        out["channelData"] = _js_channel_data(result)
    if payload.idempotency_key is not None:
        out["idempotencyKey"] = payload.idempotency_key
    if payload.transcript_owner:
        out["transcriptOwner"] = True
    return out


def extract_messaging_tool_source_reply_payload_js(result: Any = UNDEFINED) -> Any:
    payload = extract_messaging_tool_source_reply_payload(to_json_keeping_opaque(result))
    return UNDEFINED if payload is None else encode_source_reply_payload(payload, result)


# --- silent replies -------------------------------------------------------------------


def _key_counting_channel_data(value: Any) -> JsonValue:
    # The core asks only whether channel data has members; the original counts members
    # holding `undefined` too, which the JSON view drops, so they are kept as `None`.
    if not is_plain_object(value):
        return to_json_keeping_opaque(value)
    return {key: None if item is UNDEFINED else to_json_keeping_opaque(item) for key, item in value.items()}


def decode_reply_payload(payload: Any) -> ReplyPayload | None:
    """The typed reply payload for a JavaScript payload object, None for a non-object."""
    if not is_plain_object(payload):
        return None
    record = as_record(to_json_keeping_opaque(payload)) or {}
    channel_data = _key_counting_channel_data(payload.get("channelData", UNDEFINED))
    return dataclasses.replace(parse_reply_payload(record), channel_data=channel_data)


def is_silent_payload_js(payload: Any = UNDEFINED) -> bool:
    reply = decode_reply_payload(payload)
    return reply is not None and is_silent_payload(reply)

