"""Source replies: current-source route matching and internal-UI payload extraction."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from clawharness._jsvalue import UNDEFINED
from clawharness.delivery.channels import (
    ChannelMessagingHooks,
    clear_channel_hooks,
    register_channel_hooks,
)
from clawharness.delivery.source_reply import (
    extract_messaging_tool_source_reply_payload,
    is_delivered_messaging_tool_send_to_current_source,
)


def _params(**overrides: Any) -> dict[str, Any]:
    params: dict[str, Any] = {
        "send": {"tool": "message", "provider": "slack", "to": "C1"},
        "currentProvider": "Slack",
        "currentChannelId": "C1",
        "sessionKey": "agent:main:slack:channel:c1",
    }
    params.update(overrides)
    return params


@pytest.fixture(autouse=True)
def _no_channels() -> Iterator[None]:
    clear_channel_hooks()
    yield
    clear_channel_hooks()


def test_a_send_to_the_current_conversation_is_the_source_reply() -> None:
    assert is_delivered_messaging_tool_send_to_current_source(_params())


def test_a_send_without_a_session_is_not_a_source_reply() -> None:
    assert not is_delivered_messaging_tool_send_to_current_source(_params(sessionKey=" "))


def test_a_failed_delivery_is_not_a_source_reply() -> None:
    params = _params(deliveredPayload={"ok": False, "error": "x"})
    assert not is_delivered_messaging_tool_send_to_current_source(params)


def test_a_different_account_is_not_the_source() -> None:
    send = {"provider": "slack", "to": "C1", "accountId": "Work"}
    assert is_delivered_messaging_tool_send_to_current_source(
        _params(send=send, currentAccountId="work")
    )
    assert not is_delivered_messaging_tool_send_to_current_source(
        _params(send=send, currentAccountId="home")
    )


def test_a_thread_scoped_turn_needs_thread_evidence() -> None:
    assert not is_delivered_messaging_tool_send_to_current_source(_params(currentThreadId="t1"))
    threaded = {"provider": "slack", "to": "C1", "threadId": "t1"}
    assert is_delivered_messaging_tool_send_to_current_source(
        _params(send=threaded, currentThreadId="t1")
    )
    top_level = {"provider": "slack", "to": "C1", "threadSuppressed": True}
    assert not is_delivered_messaging_tool_send_to_current_source(
        _params(send=top_level, currentThreadId="t1")
    )


def test_a_receipt_thread_overrides_the_requested_route() -> None:
    payload = {"ok": True, "result": {"receipt": {"threadId": "other"}}}
    assert not is_delivered_messaging_tool_send_to_current_source(_params(deliveredPayload=payload))


def test_reported_recipients_must_all_be_the_current_chat() -> None:
    same = {"ok": True, "channelId": "slack:channel:C1"}
    assert is_delivered_messaging_tool_send_to_current_source(_params(deliveredPayload=same))
    other = {"ok": True, "results": [{"channelId": "C1"}, {"channelId": "C2"}]}
    assert not is_delivered_messaging_tool_send_to_current_source(_params(deliveredPayload=other))


def test_a_channel_normalizer_makes_equivalent_targets_match() -> None:
    params = _params(send={"provider": "slack", "to": "channel:c1"})
    assert not is_delivered_messaging_tool_send_to_current_source(params)
    register_channel_hooks(
        ChannelMessagingHooks(
            id="slack", normalize_target=lambda raw: raw.strip().lower().removeprefix("channel:")
        )
    )
    assert is_delivered_messaging_tool_send_to_current_source(params)


def test_an_internal_ui_reply_keeps_its_payload() -> None:
    result = {
        "details": {
            "sourceReplySink": "internal-ui",
            "deliveryStatus": "sent",
            "sourceReply": {
                "text": "hi",
                "mediaUrls": ["a.png", 3],
                "presentation": {
                    "title": " Pick ",
                    "blocks": [{"type": "buttons", "buttons": [{"label": "Go", "value": "go"}]}],
                },
                "channelData": {},
            },
            "sourceReplyTranscriptOwner": True,
        }
    }
    assert extract_messaging_tool_source_reply_payload(result) == {
        "text": "hi",
        "mediaUrls": ["a.png"],
        "presentation": {
            "title": "Pick",
            "tone": UNDEFINED,
            "blocks": [
                {"type": "buttons", "buttons": [{"label": "Go", "value": "go", "style": UNDEFINED}]}
            ],
        },
        "channelData": {},
        "transcriptOwner": True,
    }


def test_a_channel_sink_or_failed_status_yields_no_payload() -> None:
    channel = {"details": {"sourceReplySink": "channel", "message": "hi"}}
    assert extract_messaging_tool_source_reply_payload(channel) is None
    failed = {"details": {"sourceReplySink": "internal-ui", "deliveryStatus": "failed"}}
    assert extract_messaging_tool_source_reply_payload(failed) is None


def test_an_empty_source_reply_text_does_not_fall_back_to_the_message() -> None:
    result = {"details": {"sourceReplySink": "internal-ui", "message": "m", "mediaUrl": "u"}}
    assert extract_messaging_tool_source_reply_payload(result) == {"text": "m", "mediaUrl": "u"}
    result["details"]["sourceReply"] = {"text": ""}
    assert extract_messaging_tool_source_reply_payload(result) == {"mediaUrl": "u"}
