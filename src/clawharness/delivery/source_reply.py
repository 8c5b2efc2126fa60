"""Source replies made through the message tool.

`extract_messaging_tool_source_reply_payload` keeps the reply that a `message` tool call
delivered to an internal UI sink (text, media, attachment metadata, the transcript
owner's confirmation), so presentation middleware cannot lose it.
`is_delivered_messaging_tool_send_to_current_source` compares a confirmed send's route
with the turn's source conversation.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from clawharness._json import JsonObject, JsonValue
from clawharness.delivery._coerce import (
    as_list,
    as_record,
    non_negative_finite_number,
    normalize_optional_lowercase,
    read_string,
)
from clawharness.delivery.current_source import (
    SourceReplyRoute,
    ToolContext,
    is_delivered_current_source_send,
)
from clawharness.delivery.presentation import (
    InteractiveReply,
    MessagePresentation,
    normalize_legacy_interactive_reply,
    normalize_message_presentation,
)
from clawharness.delivery.tool_results import read_tool_result_details

__all__ = [
    "MessagingToolSend",
    "SourceReplyAttachment",
    "SourceReplyPayload",
    "TurnSource",
    "extract_messaging_tool_source_reply_payload",
    "is_delivered_messaging_tool_send_to_current_source",
]


@dataclass(frozen=True, slots=True)
class SourceReplyAttachment:
    """One attachment of a source reply; every field is optional."""

    path: str | None = None
    url: str | None = None
    media_url: str | None = None
    file_path: str | None = None
    mime_type: str | None = None
    name: str | None = None
    trusted_local_media: bool | None = None
    duration_ms: int | float | None = None
    width: int | float | None = None
    height: int | float | None = None


@dataclass(frozen=True, slots=True)
class SourceReplyPayload:
    """The reply a `message` tool call delivered to an internal UI."""

    text: str | None = None
    media_url: str | None = None
    media_urls: tuple[str, ...] = ()
    attachments: tuple[SourceReplyAttachment, ...] = ()
    trusted_local_media: bool | None = None
    audio_as_voice: bool = False
    presentation: MessagePresentation | None = None
    interactive: InteractiveReply | None = None
    #: channel-specific data, passed on untouched
    channel_data: Mapping[str, JsonValue] | None = None
    idempotency_key: str | None = None
    #: the transcript owner confirmed it records this reply itself
    transcript_owner: bool = False


@dataclass(frozen=True, slots=True)
class MessagingToolSend:
    """A send a messaging tool made, as the tool reported it."""

    provider: str | None = None
    to: str | None = None
    account_id: str | None = None
    thread_id: str | None = None
    #: the send was made at the top level, outside any thread
    thread_suppressed: bool = False


@dataclass(frozen=True, slots=True)
class TurnSource:
    """The conversation the current turn came from."""

    provider: str | None = None
    account_id: str | None = None
    channel_id: str | None = None
    messaging_target: str | None = None
    thread_id: str | None = None
    session_key: str | None = None


def _first_string(*values: JsonValue) -> str | None:
    # The first value that is a string at all: an empty string stops the search.
    for value in values:
        text = read_string(value)
        if text is not None:
            return text
    return None


def _non_empty_string(value: JsonValue) -> str | None:
    return read_string(value) or None


def _attachment(value: JsonValue) -> SourceReplyAttachment | None:
    record = as_record(value)
    if record is None:
        return None
    trusted = record.get("trustedLocalMedia")
    return SourceReplyAttachment(
        path=_non_empty_string(record.get("path")),
        url=_non_empty_string(record.get("url")),
        media_url=_non_empty_string(record.get("mediaUrl")),
        file_path=_non_empty_string(record.get("filePath")),
        mime_type=_non_empty_string(record.get("mimeType")),
        name=_non_empty_string(record.get("name")),
        trusted_local_media=trusted if isinstance(trusted, bool) else None,
        duration_ms=non_negative_finite_number(record.get("durationMs")),
        width=non_negative_finite_number(record.get("width")),
        height=non_negative_finite_number(record.get("height")),
    )


def _media_urls(source: JsonObject, details: JsonObject) -> tuple[str, ...]:
    raw = as_list(source.get("mediaUrls"))
    if raw is None:
        raw = as_list(details.get("mediaUrls")) or []
    return tuple(url for url in raw if isinstance(url, str))


def extract_messaging_tool_source_reply_payload(result: JsonValue) -> SourceReplyPayload | None:
    """The internal-UI source reply a message tool delivered, or None.

    Only results whose `details.sourceReplySink` is `internal-ui` qualify, and only when
    the delivery status is absent or `sent`. The reply's fields come from
    `details.sourceReply` when it is an object, some falling back to `details` itself.
    """
    details = read_tool_result_details(result)
    if details is None or details.get("sourceReplySink") != "internal-ui":
        return None
    status = normalize_optional_lowercase(details.get("deliveryStatus"))
    if status and status != "sent":
        return None
    source_reply = as_record(details.get("sourceReply"))
    source = source_reply if source_reply is not None else details
    attachments = as_list(source.get("attachments")) or []
    trusted = source.get("trustedLocalMedia")
    channel_data = as_record(source.get("channelData"))
    payload = SourceReplyPayload(
        text=_first_string(source.get("text"), details.get("message")) or None,
        media_url=_first_string(source.get("mediaUrl"), details.get("mediaUrl")) or None,
        media_urls=_media_urls(source, details),
        attachments=tuple(a for a in (_attachment(v) for v in attachments) if a is not None),
        trusted_local_media=trusted if isinstance(trusted, bool) else None,
        audio_as_voice=source.get("audioAsVoice") is True or details.get("audioAsVoice") is True,
        presentation=normalize_message_presentation(source.get("presentation")),
        interactive=normalize_legacy_interactive_reply(source.get("interactive")),
        channel_data=dict(channel_data) if channel_data is not None else None,
        idempotency_key=_first_string(source.get("idempotencyKey"), details.get("idempotencyKey"))
        or None,
        transcript_owner=details.get("sourceReplyTranscriptOwner") is True,
    )
    return None if payload == SourceReplyPayload() else payload


def is_delivered_messaging_tool_send_to_current_source(
    send: MessagingToolSend, source: TurnSource, delivered_payload: JsonValue = None
) -> bool:
    """True when a confirmed messaging send went to the turn's own source conversation.

    `delivered_payload` is the plugin's receipt for the send, when it returned one.
    """
    if not send.to:
        return False
    action_params: dict[str, JsonValue] = {"target": send.to}
    if send.thread_suppressed:
        action_params["topLevel"] = True
    elif send.thread_id:
        action_params["threadId"] = send.thread_id
    route = SourceReplyRoute(
        action="send",
        channel=send.provider,
        action_params=action_params,
        tool_context=ToolContext(
            current_channel_provider=source.provider,
            current_channel_id=source.channel_id,
            current_messaging_target=source.messaging_target,
            current_thread_ts=source.thread_id,
        ),
        account_id=send.account_id,
        current_account_id=source.account_id,
        session_key=source.session_key,
        delivered_payload=delivered_payload,
    )
    return is_delivered_current_source_send(route)
