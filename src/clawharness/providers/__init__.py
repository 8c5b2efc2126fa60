"""Model transports for the built-in runtime: OpenAI Responses and Chat Completions (also
Ollama, vLLM and other compatible servers by `base_url`), Anthropic Messages, and an
in-process scripted transport.
"""

from __future__ import annotations

from clawharness.errors import (
    ProviderAuthError,
    ProviderConnectionError,
    ProviderContextOverflowError,
    ProviderError,
    ProviderRateLimitError,
    ProviderServerError,
    ProviderTimeoutError,
)
from clawharness.providers.base import (
    STREAM_CUT_MESSAGE,
    Done,
    ModelRequest,
    ModelTransport,
    StreamEvent,
    TextDelta,
    ThinkingDelta,
    ToolCall,
    ToolSchema,
    Usage,
    map_provider_error,
)
from clawharness.providers.credentials import resolve_api_key
from clawharness.providers.diagnostics import locate_provider_error, provider_failure_details
from clawharness.providers.registry import resolve_api, transport_for

__all__ = [
    "STREAM_CUT_MESSAGE",
    "Done",
    "ModelRequest",
    "ModelTransport",
    "ProviderAuthError",
    "ProviderConnectionError",
    "ProviderContextOverflowError",
    "ProviderError",
    "ProviderRateLimitError",
    "ProviderServerError",
    "ProviderTimeoutError",
    "StreamEvent",
    "TextDelta",
    "ThinkingDelta",
    "ToolCall",
    "ToolSchema",
    "Usage",
    "locate_provider_error",
    "map_provider_error",
    "provider_failure_details",
    "resolve_api",
    "resolve_api_key",
    "transport_for",
]
