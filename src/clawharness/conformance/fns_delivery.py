"""Conformance fragment: messaging delivery facts.

Maps the original's export names to their adapters (`adapters_delivery`), which decode
the vectors' JavaScript values into the typed delivery API and encode results back.
"""

from __future__ import annotations

from typing import Any

from clawharness.conformance.adapters_delivery import (
    extract_messaging_tool_source_reply_payload_js,
    is_delivered_messaging_tool_result_js,
    is_delivered_messaging_tool_send_to_current_source_js,
    is_messaging_tool_js,
    is_messaging_tool_send_action_js,
    project_plugin_message_delivery_fact_js,
    read_embedded_message_delivery_fact_js,
)

__all__ = ["FUNCTIONS"]

FUNCTIONS: dict[str, Any] = {
    "readEmbeddedMessageDeliveryFact": read_embedded_message_delivery_fact_js,
    "isDeliveredMessagingToolResult": is_delivered_messaging_tool_result_js,
    "projectPluginMessageDeliveryFact": project_plugin_message_delivery_fact_js,
    "isDeliveredMessagingToolSendToCurrentSource": (
        is_delivered_messaging_tool_send_to_current_source_js
    ),
    "extractMessagingToolSourceReplyPayload": extract_messaging_tool_source_reply_payload_js,
    "isMessagingTool": is_messaging_tool_js,
    "isMessagingToolSendAction": is_messaging_tool_send_action_js,
}
