"""Conformance fragment: messaging delivery facts.

Maps the original's export names to the Python implementations. Results that are
dataclasses encode through their `to_js()`; "no fact" is JavaScript `undefined`.
"""

from __future__ import annotations

from typing import Any

from clawharness._jsvalue import UNDEFINED
from clawharness.delivery.facts import (
    project_plugin_message_delivery_fact,
    read_embedded_message_delivery_fact,
)
from clawharness.delivery.messaging_tools import (
    is_delivered_messaging_tool_result,
    is_messaging_tool,
    is_messaging_tool_send_action,
)
from clawharness.delivery.source_reply import (
    extract_messaging_tool_source_reply_payload,
    is_delivered_messaging_tool_send_to_current_source,
)

__all__ = ["FUNCTIONS"]


def _read_embedded_message_delivery_fact(value: Any = UNDEFINED) -> Any:
    fact = read_embedded_message_delivery_fact(value)
    return UNDEFINED if fact is None else fact


def _project_plugin_message_delivery_fact(value: Any = UNDEFINED) -> Any:
    fact = project_plugin_message_delivery_fact(value)
    return UNDEFINED if fact is None else fact


def _extract_messaging_tool_source_reply_payload(result: Any = UNDEFINED) -> Any:
    payload = extract_messaging_tool_source_reply_payload(result)
    return UNDEFINED if payload is None else payload


def _is_messaging_tool_send_action(tool_name: Any = UNDEFINED, args: Any = UNDEFINED) -> bool:
    return is_messaging_tool_send_action(tool_name, args)


FUNCTIONS: dict[str, Any] = {
    "readEmbeddedMessageDeliveryFact": _read_embedded_message_delivery_fact,
    "isDeliveredMessagingToolResult": is_delivered_messaging_tool_result,
    "projectPluginMessageDeliveryFact": _project_plugin_message_delivery_fact,
    "isDeliveredMessagingToolSendToCurrentSource": (
        is_delivered_messaging_tool_send_to_current_source
    ),
    "extractMessagingToolSourceReplyPayload": _extract_messaging_tool_source_reply_payload,
    "isMessagingTool": is_messaging_tool,
    "isMessagingToolSendAction": _is_messaging_tool_send_action,
}
