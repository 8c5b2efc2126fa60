"""Source replies made through the message tool.

`extract_messaging_tool_source_reply_payload` keeps the reply that a `message` tool call
delivered to an internal UI sink (text, media, attachment metadata, the transcript
owner's confirmation), so presentation middleware cannot lose it.
`is_delivered_messaging_tool_send_to_current_source` compares a confirmed send's route
with the turn's source conversation.
"""

from __future__ import annotations

from typing import Any

from clawharness.delivery._coerce import (
    as_record,
    is_array,
    js_truthy,
    non_negative_finite_number,
    normalize_optional_lowercase,
    opt_prop,
    prop,
    read_string,
)
from clawharness.delivery.current_source import (
    SourceReplyRoute,
    ToolContext,
    is_delivered_current_source_send,
)
from clawharness.delivery.presentation import (
    normalize_legacy_interactive_reply,
    normalize_message_presentation,
)
from clawharness.delivery.tool_results import read_tool_result_details

__all__ = [
    "extract_messaging_tool_source_reply_payload",
    "is_delivered_messaging_tool_send_to_current_source",
]

_ATTACHMENT_STRINGS = (
    ("path", "path"),
    ("url", "url"),
    ("mediaUrl", "mediaUrl"),
    ("filePath", "filePath"),
    ("mimeType", "mimeType"),
    ("name", "name"),
)


def _first_string(*values: Any) -> str | None:
    # `a ?? b` over string reads: an empty string stops the chain.
    for value in values:
        text = read_string(value)
        if text is not None:
            return text
    return None


def _attachment(value: Any) -> dict[str, Any] | None:
    record = as_record(value)
    if record is None:
        return None
    out: dict[str, Any] = {}
    for source, target in _ATTACHMENT_STRINGS:
        text = read_string(record.get(source))
        if text:
            out[target] = text
    trusted = record.get("trustedLocalMedia")
    if isinstance(trusted, bool):
        out["trustedLocalMedia"] = trusted
    for key in ("durationMs", "width", "height"):
        number = non_negative_finite_number(record.get(key))
        if number is not None:
            out[key] = number
    return out


def extract_messaging_tool_source_reply_payload(result: Any) -> dict[str, Any] | None:
    """The internal-UI source reply a message tool delivered, or None.

    Only results whose `details.sourceReplySink` is `internal-ui` qualify, and only when
    the delivery status is absent or `sent`.
    """
    details = read_tool_result_details(result)
    if details is None or details.get("sourceReplySink") != "internal-ui":
        return None
    status = normalize_optional_lowercase(details.get("deliveryStatus"))
    if status and status != "sent":
        return None
    source_reply = as_record(details.get("sourceReply"))
    source = source_reply if source_reply is not None else details
    payload: dict[str, Any] = {}
    text = _first_string(source.get("text"), details.get("message"))
    if text:
        payload["text"] = text
    media_url = _first_string(source.get("mediaUrl"), details.get("mediaUrl"))
    if media_url:
        payload["mediaUrl"] = media_url
    raw_media = source.get("mediaUrls")
    if not is_array(raw_media):
        raw_media = details.get("mediaUrls")
    media_urls = [v for v in raw_media if isinstance(v, str)] if is_array(raw_media) else []
    if media_urls:
        payload["mediaUrls"] = media_urls
    raw_attachments = source.get("attachments")
    if is_array(raw_attachments):
        attachments = [a for a in (_attachment(v) for v in raw_attachments) if a is not None]
        if attachments:
            payload["attachments"] = attachments
    trusted = source.get("trustedLocalMedia")
    if isinstance(trusted, bool):
        payload["trustedLocalMedia"] = trusted
    if source.get("audioAsVoice") is True or details.get("audioAsVoice") is True:
        payload["audioAsVoice"] = True
    presentation = normalize_message_presentation(source.get("presentation"))
    if presentation:
        payload["presentation"] = presentation
    interactive = normalize_legacy_interactive_reply(source.get("interactive"))
    if interactive:
        payload["interactive"] = interactive
    channel_data = as_record(source.get("channelData"))
    if channel_data is not None:
        payload["channelData"] = dict(channel_data)
    idempotency_key = _first_string(source.get("idempotencyKey"), details.get("idempotencyKey"))
    if idempotency_key:
        payload["idempotencyKey"] = idempotency_key
    if details.get("sourceReplyTranscriptOwner") is True:
        payload["transcriptOwner"] = True
    return payload or None


def is_delivered_messaging_tool_send_to_current_source(params: Any) -> bool:
    """True when a confirmed messaging send went to the turn's own source conversation.

    `params` is the original's object: `send` (a `MessagingToolSend`), `currentProvider`,
    `currentAccountId`, `currentChannelId`, `currentMessagingTarget`, `currentThreadId`,
    `sessionKey` and `deliveredPayload`.
    """
    send = prop(params, "send")
    to = opt_prop(send, "to")
    if not js_truthy(to):
        return False
    action_params: dict[str, Any] = {"target": to}
    if js_truthy(prop(send, "threadSuppressed")):
        action_params["topLevel"] = True
    elif js_truthy(prop(send, "threadId")):
        action_params["threadId"] = prop(send, "threadId")
    route = SourceReplyRoute(
        action="send",
        channel=prop(send, "provider"),
        action_params=action_params,
        tool_context=ToolContext(
            current_channel_provider=prop(params, "currentProvider"),
            current_channel_id=prop(params, "currentChannelId"),
            current_messaging_target=prop(params, "currentMessagingTarget"),
            current_thread_ts=prop(params, "currentThreadId"),
        ),
        account_id=prop(send, "accountId"),
        current_account_id=prop(params, "currentAccountId"),
        session_key=prop(params, "sessionKey"),
        delivered_payload=prop(params, "deliveredPayload"),
    )
    return is_delivered_current_source_send(route)
