"""Messaging-tool eligibility and the no-fact delivery fallback."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from clawharness.delivery.channels import (
    ChannelMessagingHooks,
    clear_channel_hooks,
    normalize_account_id,
    register_channel_hooks,
)
from clawharness.delivery.messaging_tools import (
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
            extract_tool_send_target=lambda args: args.get("chat"),
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


def test_a_channel_tool_result_uses_the_plugin_envelope(telegram: None) -> None:
    params: dict[str, Any] = {
        "toolName": "telegram",
        "args": {"chat": "123"},
        "result": {"details": {"ok": True, "messageId": "9"}},
    }
    assert is_delivered_messaging_tool_result(params)


def test_conversation_turn_timeout_still_counts_as_sent() -> None:
    for tool, expected in (("conversations_turn", True), ("conversations_send", False)):
        params = {"toolName": tool, "args": {}, "result": {"details": {"status": "timeout"}}}
        assert is_delivered_messaging_tool_result(params) is expected


def test_a_required_plugin_delivery_id_must_be_present() -> None:
    base: dict[str, Any] = {"toolName": "message", "args": {"action": "send"}}
    ok_only = {**base, "result": {"details": {"ok": True}}}
    assert is_delivered_messaging_tool_result(ok_only)
    assert not is_delivered_messaging_tool_result({**ok_only, "requirePluginDeliveryId": True})
    with_id = {**base, "result": {"details": {"ok": True, "messageId": "m"}}}
    assert is_delivered_messaging_tool_result({**with_id, "requirePluginDeliveryId": True})


def test_a_tool_error_flag_hides_an_ok_result() -> None:
    params = {
        "toolName": "message",
        "args": {"action": "send"},
        "result": {"details": {"ok": True}},
        "isError": True,
    }
    assert not is_delivered_messaging_tool_result(params)


def test_a_broadcast_with_one_settled_target_is_delivered() -> None:
    params = {
        "toolName": "message",
        "args": {"action": "broadcast"},
        "result": {"details": {"results": [{"ok": True, "payload": {"messageId": "b"}}]}},
    }
    assert is_delivered_messaging_tool_result(params)


def test_account_ids_normalize_to_a_path_safe_form() -> None:
    assert normalize_account_id("  Work Account ") == "work-account"
    assert normalize_account_id("") == "default"
    assert normalize_account_id("__proto__") == "default"
    assert normalize_account_id("constructor") == "default"
