"""Secret redaction: masking credentials in free text and in structured values.

Two policies, as in the original:

- *tool payload* text (tool-call arguments, progress details, config values shown in
  errors) is checked against every built-in secret shape;
- *model-visible* tool output skips the ambiguous `KEY=value` assignment shapes (they
  are too common in real output) unless the value sits under a secret-named field.

A masked secret keeps `first6…last4` when it is long enough, else becomes `***`. The
shapes are data (`patterns`); `text` applies them, `fields` decides by field name.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from clawharness._faces import lazy_face
from clawharness.redaction.config_text import (
    describe_value,
    is_secret_key_path,
    redact_config_text,
)
from clawharness.redaction.fields import (
    is_sensitive_field_key,
    redact_model_visible_secrets,
    redact_model_visible_tool_payload_text,
    redact_sensitive_field_value,
    redact_tool_detail,
    redact_tool_payload_text,
)
from clawharness.redaction.mask import mask_token

if TYPE_CHECKING:
    from clawharness.redaction.env import is_secret_variable
    from clawharness.redaction.known import (
        known_generation,
        register_known_secrets,
        unregister_known_secrets,
    )
    from clawharness.redaction.outbound import (
        odd_values_seen,
        redact_entry,
        redact_secrets,
        redact_secrets_in,
        redact_tool_result,
        redact_transcript_message,
        redact_walked,
    )

__all__ = [
    "describe_value",
    "is_secret_key_path",
    "is_secret_variable",
    "is_sensitive_field_key",
    "known_generation",
    "mask_token",
    "odd_values_seen",
    "redact_config_text",
    "redact_entry",
    "redact_model_visible_secrets",
    "redact_model_visible_tool_payload_text",
    "redact_secrets",
    "redact_secrets_in",
    "redact_sensitive_field_value",
    "redact_tool_detail",
    "redact_tool_payload_text",
    "redact_tool_result",
    "redact_transcript_message",
    "redact_walked",
    "register_known_secrets",
    "unregister_known_secrets",
]

__getattr__, __dir__ = lazy_face(__name__, {
    "is_secret_variable": "clawharness.redaction.env",
    "known_generation": "clawharness.redaction.known",
    "odd_values_seen": "clawharness.redaction.outbound",
    "redact_entry": "clawharness.redaction.outbound",
    "redact_secrets": "clawharness.redaction.outbound",
    "redact_secrets_in": "clawharness.redaction.outbound",
    "redact_tool_result": "clawharness.redaction.outbound",
    "redact_transcript_message": "clawharness.redaction.outbound",
    "redact_walked": "clawharness.redaction.outbound",
    "register_known_secrets": "clawharness.redaction.known",
    "unregister_known_secrets": "clawharness.redaction.known",
})
