"""Model transports for the built-in runtime: OpenAI Responses and Chat Completions (also
Ollama, vLLM and other compatible servers by `base_url`), Anthropic Messages, and an
in-process scripted transport.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from clawharness._faces import lazy_face
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
    make_model_request,
    map_provider_error,
)
from clawharness.providers.credentials import resolve_api_key
from clawharness.providers.diagnostics import locate_provider_error, provider_failure_details
from clawharness.providers.registry import resolve_api, transport_for

if TYPE_CHECKING:
    from clawharness.providers.diagnostics import endpoint_url
    from clawharness.providers.registry import default_api, preload_transports
    from clawharness.providers.script import (
        EXHAUSTED_TEXT,
        Script,
        ScriptError,
        ScriptItem,
        ScriptPlayer,
        ScriptToolCall,
        ScriptUsage,
        load_script,
        parse_script,
    )

__all__ = [
    "EXHAUSTED_TEXT",
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
    "Script",
    "ScriptError",
    "ScriptItem",
    "ScriptPlayer",
    "ScriptToolCall",
    "ScriptUsage",
    "StreamEvent",
    "TextDelta",
    "ThinkingDelta",
    "ToolCall",
    "ToolSchema",
    "Usage",
    "default_api",
    "endpoint_url",
    "load_script",
    "locate_provider_error",
    "make_model_request",
    "map_provider_error",
    "parse_script",
    "preload_transports",
    "provider_failure_details",
    "resolve_api",
    "resolve_api_key",
    "transport_for",
]

__getattr__, __dir__ = lazy_face(__name__, {
    "EXHAUSTED_TEXT": "clawharness.providers.script",
    "Script": "clawharness.providers.script",
    "ScriptError": "clawharness.providers.script",
    "ScriptItem": "clawharness.providers.script",
    "ScriptPlayer": "clawharness.providers.script",
    "ScriptToolCall": "clawharness.providers.script",
    "ScriptUsage": "clawharness.providers.script",
    "default_api": "clawharness.providers.registry",
    "endpoint_url": "clawharness.providers.diagnostics",
    "load_script": "clawharness.providers.script",
    "parse_script": "clawharness.providers.script",
    "preload_transports": "clawharness.providers.registry",
})
