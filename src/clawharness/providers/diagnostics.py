"""Provider failures that say where and what to do.

A transport's `ProviderError` knows what the SDK said ("Connection error.", "HTTP 401:
..."), not which endpoint it was talking to. `locate_provider_error` adds the provider,
model and URL of the attempt, and a hint for the kind of failure, so that
`error: connection failed` becomes "provider "local" at http://127.0.0.1:8123/v1
(openai-responses, model m): connection to the model server failed: Connection error."
with "is the server running at ...?" under it. Pure: no I/O.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit, urlunsplit

from clawharness.errors import (
    ProviderAuthError,
    ProviderConnectionError,
    ProviderContextOverflowError,
    ProviderError,
    ProviderRateLimitError,
    ProviderServerError,
    ProviderTimeoutError,
)

if TYPE_CHECKING:
    from clawharness.harness.types import ResolvedModel

__all__ = ["OFFICIAL_BASE_URLS", "display_url", "endpoint_url", "locate_provider_error",
           "provider_failure_details", "provider_hint"]

#: the URL an SDK talks to when a provider configures no `baseUrl`, by api
OFFICIAL_BASE_URLS = {
    "openai-responses": "https://api.openai.com/v1",
    "openai-completions": "https://api.openai.com/v1",
    "anthropic-messages": "https://api.anthropic.com",
}

#: where built-in providers read their key when the config names none
_KEY_ENV = {"openai": "OPENAI_API_KEY", "anthropic": "ANTHROPIC_API_KEY"}


def display_url(url: str) -> str:
    """`url` without credentials in it (`https://user:secret@host` -> `https://host`)."""
    parts = urlsplit(url)
    if parts.username is None and parts.password is None:
        return url
    host = parts.hostname or ""
    if parts.port is not None:
        host = f"{host}:{parts.port}"
    return urlunsplit((parts.scheme, host, parts.path, parts.query, parts.fragment))


def endpoint_url(model: ResolvedModel, api: str) -> str | None:
    """The URL the attempt's transport talks to (None for in-process transports)."""
    url = model.base_url or OFFICIAL_BASE_URLS.get(api)
    if url is None or url.startswith("scripted:"):
        return None
    return display_url(url)


def _openai_compatible(api: str) -> bool:
    return api.startswith("openai")


def provider_hint(exc: ProviderError, *, provider: str, api: str, url: str | None) -> str | None:
    """What a person can do about `exc`, naming the config keys involved."""
    key = f"models.providers.{provider}"
    v1_note = ""
    if _openai_compatible(api) and url is not None and not url.rstrip("/").endswith("/v1"):
        v1_note = f"; a baseUrl for an OpenAI-compatible server ends in /v1 (this one is {url})"
    elif _openai_compatible(api):
        v1_note = " (a baseUrl for an OpenAI-compatible server ends in /v1)"
    if isinstance(exc, ProviderConnectionError):
        where = f" at {url}" if url else ""
        return f"is the server running{where}? check {key}.baseUrl{v1_note}"
    if isinstance(exc, ProviderTimeoutError):
        return (f"the server{' at ' + url if url else ''} took the request but did not answer "
                "in time: check that it is not stuck or overloaded, then try again")
    if isinstance(exc, ProviderAuthError):
        env = _KEY_ENV.get(provider)
        also = f" or the {env} environment variable" if env else ""
        return f"the server refused the credentials: check {key}.apiKey{also}"
    if isinstance(exc, ProviderRateLimitError):
        return ("the provider is limiting requests: wait and retry, or configure a fallback "
                "model in agents.defaults.model.fallbacks")
    if isinstance(exc, ProviderContextOverflowError):
        return ("the conversation no longer fits the model's context: start the session "
                "afresh with `clawharness sessions reset <session>`")
    if exc.status == 404:
        return (f"nothing answers there for this model: check {key}.baseUrl{v1_note} "
                "and the model id")
    if isinstance(exc, ProviderServerError):
        return "the model server failed on its side: try again later"
    return None


def locate_provider_error(exc: ProviderError, model: ResolvedModel, api: str) -> ProviderError:
    """`exc` again (same class), naming provider, model and URL, with a hint.

    An error that already names its provider is returned as it is.
    """
    if exc.provider is not None:
        return exc
    url = endpoint_url(model, api)
    ref = f"{model.provider}/{model.model_id}"
    where = f'provider "{model.provider}"' + (f" at {url}" if url else "")
    message = f"{where} ({api}, model {model.model_id}): {exc}"
    hint = exc.hint or provider_hint(exc, provider=model.provider, api=api, url=url)
    try:
        located = type(exc)(message, status=exc.status, provider=model.provider, model=ref,
                            url=url, hint=hint)
    except TypeError:  # a subclass with its own constructor: keep the tree's base class
        located = ProviderError(message, status=exc.status, provider=model.provider,
                                model=ref, url=url, hint=hint)
    located.__cause__ = exc.__cause__ or exc
    return located


def provider_failure_details(exc: ProviderError) -> dict[str, Any]:
    """`exc` as JSON-keyed failure details (`AttemptTerminal.details`, the CLI's envelope)."""
    details: dict[str, Any] = {"type": exc.code}
    for key, value in (("provider", exc.provider), ("model", exc.model), ("url", exc.url),
                       ("status", exc.status), ("hint", exc.hint)):
        if value is not None:
            details[key] = value
    return details
