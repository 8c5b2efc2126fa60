"""Delivery: reply payloads and what they mean for the user. NO_REPLY and silent replies
(`silent`), reply content and presentations (`reply_content`, `presentation`), messaging
tools' delivery facts (`facts`, `messaging_tools`), replies to the current source
(`current_source`, `source_reply`), channels and envelopes, and the generic tool-result
readers (`tool_results`). Plain JSON in, typed facts out; no I/O.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from clawharness._faces import lazy_face

if TYPE_CHECKING:
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
    from clawharness.delivery.silent import (
        is_silent_payload,
        is_silent_reply_payload_text,
        is_silent_reply_text,
    )
    from clawharness.delivery.source_reply import (
        MessagingToolSend,
        SourceReplyAttachment,
        SourceReplyPayload,
        TurnSource,
        extract_messaging_tool_source_reply_payload,
        is_delivered_messaging_tool_send_to_current_source,
    )
    from clawharness.delivery.tool_results import is_tool_result_error

__all__ = [
    "ButtonsBlock",
    "ControlAction",
    "DividerBlock",
    "InteractiveReply",
    "MessageDeliveryFact",
    "MessagePresentation",
    "MessagingToolCall",
    "MessagingToolSend",
    "PresentationBlock",
    "PresentationButton",
    "PresentationOption",
    "ReplyPayload",
    "SourceReplyAttachment",
    "SourceReplyPayload",
    "TextBlock",
    "TurnSource",
    "as_record",
    "extract_messaging_tool_source_reply_payload",
    "is_delivered_messaging_tool_result",
    "is_delivered_messaging_tool_send_to_current_source",
    "is_messaging_tool",
    "is_messaging_tool_send_action",
    "is_silent_payload",
    "is_silent_reply_payload_text",
    "is_silent_reply_text",
    "is_tool_result_error",
    "parse_reply_payload",
    "project_plugin_message_delivery_fact",
    "read_embedded_message_delivery_fact",
]

__getattr__, __dir__ = lazy_face(__name__, {
    "ButtonsBlock": "clawharness.delivery.presentation",
    "ControlAction": "clawharness.delivery.presentation",
    "DividerBlock": "clawharness.delivery.presentation",
    "InteractiveReply": "clawharness.delivery.presentation",
    "MessageDeliveryFact": "clawharness.delivery.facts",
    "MessagePresentation": "clawharness.delivery.presentation",
    "MessagingToolCall": "clawharness.delivery.messaging_tools",
    "MessagingToolSend": "clawharness.delivery.source_reply",
    "PresentationBlock": "clawharness.delivery.presentation",
    "PresentationButton": "clawharness.delivery.presentation",
    "PresentationOption": "clawharness.delivery.presentation",
    "ReplyPayload": "clawharness.delivery.reply_content",
    "SourceReplyAttachment": "clawharness.delivery.source_reply",
    "SourceReplyPayload": "clawharness.delivery.source_reply",
    "TextBlock": "clawharness.delivery.presentation",
    "TurnSource": "clawharness.delivery.source_reply",
    "as_record": "clawharness.delivery._coerce",
    "extract_messaging_tool_source_reply_payload": "clawharness.delivery.source_reply",
    "is_delivered_messaging_tool_result": "clawharness.delivery.messaging_tools",
    "is_delivered_messaging_tool_send_to_current_source": "clawharness.delivery.source_reply",
    "is_messaging_tool": "clawharness.delivery.messaging_tools",
    "is_messaging_tool_send_action": "clawharness.delivery.messaging_tools",
    "is_silent_payload": "clawharness.delivery.silent",
    "is_silent_reply_payload_text": "clawharness.delivery.silent",
    "is_silent_reply_text": "clawharness.delivery.silent",
    "is_tool_result_error": "clawharness.delivery.tool_results",
    "parse_reply_payload": "clawharness.delivery.reply_content",
    "project_plugin_message_delivery_fact": "clawharness.delivery.facts",
    "read_embedded_message_delivery_fact": "clawharness.delivery.facts",
})
