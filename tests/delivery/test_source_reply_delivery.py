"""Source replies: current-source route matching and internal-UI payload extraction."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator

import pytest

from clawharness._json import JsonValue
from clawharness.delivery.channels import (
    ChannelMessagingHooks,
    ToolContext,
    clear_channel_hooks,
    register_channel_hooks,
)
from clawharness.delivery.presentation import (
    ButtonsBlock,
    MessagePresentation,
    PresentationButton,
)
from clawharness.delivery.source_reply import (
    MessagingToolSend,
    SourceReplyAttachment,
    SourceReplyPayload,
    TurnSource,
    extract_messaging_tool_source_reply_payload,
    is_delivered_messaging_tool_send_to_current_source,
)

SLACK_C1 = TurnSource(provider="Slack", channel_id="C1", session_key="agent:main:slack:channel:c1")
TO_C1 = MessagingToolSend(provider="slack", to="C1")


@pytest.fixture(autouse=True)
def _no_channels() -> Iterator[None]:
    clear_channel_hooks()
    yield
    clear_channel_hooks()


def _to_source(
    send: MessagingToolSend = TO_C1,
    source: TurnSource = SLACK_C1,
    delivered: JsonValue = None,
) -> bool:
    return is_delivered_messaging_tool_send_to_current_source(send, source, delivered)


def test_a_send_to_the_current_conversation_is_the_source_reply() -> None:
    assert _to_source()


def test_a_send_without_a_target_or_a_session_is_not_a_source_reply() -> None:
    assert not _to_source(send=MessagingToolSend(provider="slack"))
    assert not _to_source(source=dataclasses.replace(SLACK_C1, session_key=" "))


def test_a_failed_delivery_is_not_a_source_reply() -> None:
    assert not _to_source(delivered={"ok": False, "error": "x"})


def test_a_different_account_is_not_the_source() -> None:
    send = MessagingToolSend(provider="slack", to="C1", account_id="Work")
    assert _to_source(send=send, source=dataclasses.replace(SLACK_C1, account_id="work"))
    assert not _to_source(send=send, source=dataclasses.replace(SLACK_C1, account_id="home"))


def test_a_thread_scoped_turn_needs_thread_evidence() -> None:
    in_thread = dataclasses.replace(SLACK_C1, thread_id="t1")
    assert not _to_source(source=in_thread)
    threaded = MessagingToolSend(provider="slack", to="C1", thread_id="t1")
    assert _to_source(send=threaded, source=in_thread)
    top_level = MessagingToolSend(provider="slack", to="C1", thread_suppressed=True)
    assert not _to_source(send=top_level, source=in_thread)


def test_a_receipt_thread_overrides_the_requested_route() -> None:
    assert not _to_source(delivered={"ok": True, "result": {"receipt": {"threadId": "other"}}})


def test_reported_recipients_must_all_be_the_current_chat() -> None:
    assert _to_source(delivered={"ok": True, "channelId": "slack:channel:C1"})
    other = {"ok": True, "results": [{"channelId": "C1"}, {"channelId": "C2"}]}
    assert not _to_source(delivered=other)


def test_a_channel_normalizer_makes_equivalent_targets_match() -> None:
    send = MessagingToolSend(provider="slack", to="channel:c1")
    assert not _to_source(send=send)
    register_channel_hooks(
        ChannelMessagingHooks(
            id="slack", normalize_target=lambda raw: raw.strip().lower().removeprefix("channel:")
        )
    )
    assert _to_source(send=send)


def test_a_channel_matcher_sees_the_turn_context() -> None:
    seen: list[tuple[str, ToolContext]] = []

    def matches(target: str, context: ToolContext) -> bool:
        seen.append((target, context))
        return target == "general" and context.current_channel_id == "C1"

    register_channel_hooks(ChannelMessagingHooks(id="slack", matches_tool_context_target=matches))
    assert _to_source(send=MessagingToolSend(provider="slack", to="general"))
    assert seen[0] == (
        "general",
        ToolContext(current_channel_provider="Slack", current_channel_id="C1"),
    )


def test_an_internal_ui_reply_keeps_its_payload() -> None:
    result: JsonValue = {
        "details": {
            "sourceReplySink": "internal-ui",
            "deliveryStatus": "sent",
            "sourceReply": {
                "text": "hi",
                "mediaUrls": ["a.png", 3],
                "attachments": [{"path": "/a.png", "width": -1, "height": 20}, 7],
                "presentation": {
                    "title": " Pick ",
                    "blocks": [{"type": "buttons", "buttons": [{"label": "Go", "value": "go"}]}],
                },
                "channelData": {},
            },
            "sourceReplyTranscriptOwner": True,
        }
    }
    assert extract_messaging_tool_source_reply_payload(result) == SourceReplyPayload(
        text="hi",
        media_urls=("a.png",),
        attachments=(SourceReplyAttachment(path="/a.png", height=20),),
        presentation=MessagePresentation(
            title="Pick", blocks=(ButtonsBlock((PresentationButton(label="Go", value="go"),)),)
        ),
        channel_data={},
        transcript_owner=True,
    )


def test_a_channel_sink_or_failed_status_yields_no_payload() -> None:
    channel: JsonValue = {"details": {"sourceReplySink": "channel", "message": "hi"}}
    assert extract_messaging_tool_source_reply_payload(channel) is None
    failed: JsonValue = {"details": {"sourceReplySink": "internal-ui", "deliveryStatus": "failed"}}
    assert extract_messaging_tool_source_reply_payload(failed) is None
    empty: JsonValue = {"details": {"sourceReplySink": "internal-ui"}}
    assert extract_messaging_tool_source_reply_payload(empty) is None


def test_an_empty_source_reply_text_does_not_fall_back_to_the_message() -> None:
    details: dict[str, JsonValue] = {
        "sourceReplySink": "internal-ui",
        "message": "m",
        "mediaUrl": "u",
    }
    expected = SourceReplyPayload(text="m", media_url="u")
    assert extract_messaging_tool_source_reply_payload({"details": details}) == expected
    details["sourceReply"] = {"text": ""}
    expected = SourceReplyPayload(media_url="u")
    assert extract_messaging_tool_source_reply_payload({"details": details}) == expected
