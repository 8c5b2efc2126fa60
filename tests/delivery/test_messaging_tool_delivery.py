"""Messaging-tool eligibility and the no-fact delivery fallback."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from clawharness.delivery.channels import (
    ChannelMessagingHooks,
    clear_channel_hooks,
    normalize_account_id,
    register_channel_hooks,
)
from clawharness.delivery.messaging_tools import (
    MessagingToolCall,
    is_delivered_messaging_tool_result,
    is_messaging_tool,
    is_messaging_tool_send_action,
)


@pytest.fixture
def telegram() -> Iterator[None]:
    clear_channel_hooks()
    register_channel_hooks(
        ChannelMessagingHooks(
            id="telegram",
            aliases=("tg",),
            has_actions=True,
            extract_tool_send_target=lambda args: str(args["chat"]) if "chat" in args else None,
        )
    )
    yield
    clear_channel_hooks()


def test_a_channel_without_registered_hooks_is_not_a_messaging_tool() -> None:
    clear_channel_hooks()
    assert not is_messaging_tool("telegram")


def test_a_registered_channel_tool_is_a_messaging_tool(telegram: None) -> None:
    assert is_messaging_tool("telegram")
    assert is_messaging_tool("TG")
    assert is_messaging_tool_send_action("telegram", {"chat": "123"})
    assert not is_messaging_tool_send_action("telegram", {})


def test_arguments_that_are_not_an_object_still_let_the_core_send_tools_send(
    telegram: None,
) -> None:
    assert is_messaging_tool_send_action("sessions_send", None)
    assert not is_messaging_tool_send_action("message", None)
    assert not is_messaging_tool_send_action("telegram", None)
    assert is_messaging_tool_send_action("message", {"action": " send "})
    assert not is_messaging_tool_send_action("message", {"action": "Send"})


def test_a_channel_tool_result_uses_the_plugin_envelope(telegram: None) -> None:
    call = MessagingToolCall(
        tool_name="telegram",
        args={"chat": "123"},
        result={"details": {"ok": True, "messageId": "9"}},
    )
    assert is_delivered_messaging_tool_result(call)


def test_a_call_without_a_tool_name_is_read_as_the_message_tool() -> None:
    sent = {"details": {"ok": True, "messageId": "m"}}
    assert is_delivered_messaging_tool_result(MessagingToolCall(args={"action": "send"}, result=sent))
    assert not is_delivered_messaging_tool_result(
        MessagingToolCall(tool_name="read", args={"action": "send"}, result=sent)
    )


def test_conversation_turn_timeout_still_counts_as_sent() -> None:
    for tool, expected in (("conversations_turn", True), ("conversations_send", False)):
        call = MessagingToolCall(tool_name=tool, result={"details": {"status": "timeout"}})
        assert is_delivered_messaging_tool_result(call) is expected


def test_a_required_plugin_delivery_id_must_be_present() -> None:
    ok_only = MessagingToolCall(
        tool_name="message", args={"action": "send"}, result={"details": {"ok": True}}
    )
    assert is_delivered_messaging_tool_result(ok_only)
    strict = MessagingToolCall(
        tool_name="message",
        args={"action": "send"},
        result={"details": {"ok": True}},
        require_plugin_delivery_id=True,
    )
    assert not is_delivered_messaging_tool_result(strict)
    with_id = MessagingToolCall(
        tool_name="message",
        args={"action": "send"},
        result={"details": {"ok": True, "messageId": "m"}},
        require_plugin_delivery_id=True,
    )
    assert is_delivered_messaging_tool_result(with_id)


def test_a_tool_error_flag_hides_an_ok_result() -> None:
    call = MessagingToolCall(
        tool_name="message",
        args={"action": "send"},
        result={"details": {"ok": True}},
        is_error=True,
    )
    assert not is_delivered_messaging_tool_result(call)


def test_a_dry_run_in_the_hook_result_hides_a_delivery() -> None:
    delivered = {"details": {"ok": True, "messageId": "m"}}
    call = MessagingToolCall(tool_name="message", args={"action": "send"}, result=delivered)
    assert is_delivered_messaging_tool_result(call)
    dry = MessagingToolCall(
        tool_name="message",
        args={"action": "send"},
        result=delivered,
        hook_result={"details": {"dryRun": True}},
    )
    assert not is_delivered_messaging_tool_result(dry)


def test_a_broadcast_with_one_settled_target_is_delivered() -> None:
    call = MessagingToolCall(
        tool_name="message",
        args={"action": "broadcast"},
        result={"details": {"results": [{"ok": True, "payload": {"messageId": "b"}}]}},
    )
    assert is_delivered_messaging_tool_result(call)


def test_a_created_topic_counts_only_with_a_finite_thread_id() -> None:
    def created(thread_json: str) -> bool:
        call = MessagingToolCall(
            tool_name="message",
            args={"action": "topic-create"},
            result={"content": [{"type": "text", "text": '{"threadId": ' + thread_json + "}"}]},
        )
        return is_delivered_messaging_tool_result(call)

    assert created("5")
    assert created('"t9"')
    assert not created('""')
    # JSON numbers are doubles to the plugins that write them: this one overflows.
    assert not created("1" + "0" * 400)


def test_account_ids_normalize_to_a_path_safe_form() -> None:
    assert normalize_account_id("  Work Account ") == "work-account"
    assert normalize_account_id("") == "default"
    assert normalize_account_id(None) == "default"
    assert normalize_account_id("__proto__") == "default"
    assert normalize_account_id("constructor") == "default"
