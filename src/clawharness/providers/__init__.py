"""Model transports for the built-in runtime: OpenAI Responses and Chat Completions (also
Ollama, vLLM and other compatible servers by `base_url`), Anthropic Messages, and an
in-process scripted transport.
"""

from __future__ import annotations

from clawharness.errors import (
    ProviderAuthError,
    ProviderContextOverflowError,
    ProviderError,
    ProviderRateLimitError,
    ProviderServerError,
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
from clawharness.providers.registry import resolve_api, transport_for

__all__ = [
    "STREAM_CUT_MESSAGE",
    "Done",
    "ModelRequest",
    "ModelTransport",
    "ProviderAuthError",
    "ProviderContextOverflowError",
    "ProviderError",
    "ProviderRateLimitError",
    "ProviderServerError",
    "StreamEvent",
    "TextDelta",
    "ThinkingDelta",
    "ToolCall",
    "ToolSchema",
    "Usage",
    "map_provider_error",
    "resolve_api",
    "resolve_api_key",
    "transport_for",
]
