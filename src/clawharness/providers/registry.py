"""Choose the model transport for a resolved model, by its `api`.

Clients (an SDK's, or `http_stream.JsonStreamClient` for the Responses API) are
expensive to build (TLS context, connection pool), so they are shared per event loop
and per (api, base URL, key, headers); transports themselves are cheap and made
per attempt. Scripted transports are shared per script, so consecutive turns walk one
script instead of replaying its start.
"""

from __future__ import annotations

import asyncio
import hashlib
import importlib
import json
import weakref
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from clawharness.errors import ProviderError
from clawharness.providers.base import ModelTransport

if TYPE_CHECKING:
    from clawharness.harness.types import ResolvedModel

__all__ = [
    "KNOWN_APIS",
    "close_shared_clients",
    "default_api",
    "preload_transports",
    "reset_scripted_transports",
    "resolve_api",
    "transport_for",
]

KNOWN_APIS = ("openai-responses", "openai-completions", "anthropic-messages", "scripted")
_PLACEHOLDER_KEY = "no-api-key"

_clients: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[tuple[Any, ...], Any]] = (
    weakref.WeakKeyDictionary()
)
_scripted: dict[str, ModelTransport] = {}


def resolve_api(model: ResolvedModel) -> str:
    """The model's `api`, or the usual one for its provider when it declares none."""
    return model.api or default_api(model.provider)


def default_api(provider: str) -> str:
    """The api a provider of this name speaks when its config names none."""
    provider = provider.lower()
    if provider == "anthropic":
        return "anthropic-messages"
    if provider in ("openai", "openai-codex"):
        return "openai-responses"
    if provider == "scripted":
        return "scripted"
    return "openai-completions"


def _client_key(api: str, model: ResolvedModel, api_key: str | None, retries: int) -> tuple[Any, ...]:
    digest = hashlib.sha256((api_key or "").encode()).hexdigest()
    return (api, model.base_url, digest, tuple(sorted(model.headers.items())), retries)


def _shared_client(api: str, model: ResolvedModel, api_key: str | None) -> Any:
    retries = int(model.params.get("maxRetries", 0) or 0)
    try:
        loop: asyncio.AbstractEventLoop | None = asyncio.get_running_loop()
    except RuntimeError:
        loop = None
    per_loop = _clients.setdefault(loop, {}) if loop is not None else {}
    key = _client_key(api, model, api_key, retries)
    client = per_loop.get(key)
    if client is not None:
        return client
    headers = dict(model.headers) or None
    if api == "openai-responses":
        from clawharness.providers.http_stream import JsonStreamClient

        # no SDK: the stream's events are read as JSON (retries are the host's failover's)
        client = JsonStreamClient(api_key=api_key or _PLACEHOLDER_KEY,
                                  base_url=model.base_url, headers=headers)
    elif api == "anthropic-messages":
        from anthropic import AsyncAnthropic

        client = AsyncAnthropic(
            api_key=api_key or _PLACEHOLDER_KEY, base_url=model.base_url,
            default_headers=headers, max_retries=retries,
        )
    else:
        from openai import AsyncOpenAI

        client = AsyncOpenAI(
            api_key=api_key or _PLACEHOLDER_KEY, base_url=model.base_url,
            default_headers=headers, max_retries=retries,
        )
    per_loop[key] = client
    return client


_script_keys: dict[int, tuple[Mapping[str, Any], str]] = {}


def _scripted_transport(model: ResolvedModel) -> ModelTransport:
    script = model.params.get("script")
    if script is None and model.base_url and model.base_url.startswith("scripted:"):
        script = model.base_url.removeprefix("scripted:")
    if script is None:
        raise ProviderError(
            f"model {model.provider}/{model.model_id} uses api 'scripted' but names no script "
            "(set params.script to a script object or file path)"
        )
    if isinstance(script, Mapping):
        # a config's script is the same object every turn: dump it once
        known = _script_keys.get(id(script))
        if known is not None and known[0] is script:
            key = known[1]
        else:
            key = "inline:" + json.dumps(script, sort_keys=True, default=str)
            if len(_script_keys) > 256:
                _script_keys.clear()
            _script_keys[id(script)] = (script, key)
    else:
        key = "file:" + str(script)
    transport = _scripted.get(key)
    if transport is None:
        from clawharness.providers.scripted import ScriptedTransport

        # shared and long-lived, so it does not keep every request it serves
        transport = ScriptedTransport(
            script if isinstance(script, Mapping) else str(script), keep_requests=False
        )
        _scripted[key] = transport
    return transport


#: the module of each api's transport; importing it imports the SDK it drives
_TRANSPORT_MODULES = {
    "openai-responses": "clawharness.providers.openai_responses",
    "openai-completions": "clawharness.providers.openai_chat",
    "anthropic-messages": "clawharness.providers.anthropic_messages",
}


def preload_transports(apis: Iterable[str]) -> tuple[str, ...]:
    """Import the transports of `apis` now: a long-running server pays for its model
    SDKs at start, not in its first turn (`anthropic` alone imports in about a second).
    Returns the modules imported; an api without a transport module is skipped."""
    modules = sorted({_TRANSPORT_MODULES[api] for api in apis if api in _TRANSPORT_MODULES})
    for name in modules:
        importlib.import_module(name)
    return tuple(modules)


def transport_for(model: ResolvedModel, api_key: str | None) -> ModelTransport:
    """A transport for `model`; `api_key` is used in memory only, never logged."""
    api = resolve_api(model)
    if api == "openai-responses":
        from clawharness.providers.openai_responses import OpenAIResponsesTransport

        return OpenAIResponsesTransport(_shared_client(api, model, api_key))
    if api == "openai-completions":
        from clawharness.providers.openai_chat import OpenAIChatTransport

        stream_usage = model.params.get("streamUsage", True) is not False
        return OpenAIChatTransport(_shared_client(api, model, api_key), stream_usage=stream_usage)
    if api == "anthropic-messages":
        from clawharness.providers.anthropic_messages import AnthropicMessagesTransport

        return AnthropicMessagesTransport(_shared_client(api, model, api_key))
    if api == "scripted":
        return _scripted_transport(model)
    raise ProviderError(
        f"model {model.provider}/{model.model_id} has api {api!r}; the built-in runtime "
        f"speaks {', '.join(KNOWN_APIS)}"
    )


async def close_shared_clients() -> None:
    """Close the clients shared on the running loop (call at shutdown)."""
    loop = asyncio.get_running_loop()
    clients = _clients.pop(loop, {})
    for client in clients.values():
        await client.close()


def reset_scripted_transports() -> None:
    """Forget shared scripted transports, so the next attempt starts its script afresh."""
    _scripted.clear()
