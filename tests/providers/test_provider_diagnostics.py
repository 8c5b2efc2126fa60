"""`locate_provider_error`: the same error class, naming provider, model and URL, with a
hint per kind of failure; credentials never appear in the URL shown."""

from __future__ import annotations

import pytest

from clawharness.errors import (
    ProviderAuthError,
    ProviderConnectionError,
    ProviderContextOverflowError,
    ProviderError,
    ProviderRateLimitError,
    ProviderServerError,
    ProviderTimeoutError,
)
from clawharness.harness.types import ResolvedModel
from clawharness.providers.base import map_provider_error
from clawharness.providers.diagnostics import (
    display_url,
    endpoint_url,
    locate_provider_error,
    provider_failure_details,
)

LOCAL = ResolvedModel("local", "m", api="openai-responses", base_url="http://127.0.0.1:8123/v1")


def test_a_located_error_keeps_its_class_and_names_the_endpoint() -> None:
    raw = ProviderConnectionError("connection to the model server failed: Connection error.")
    located = locate_provider_error(raw, LOCAL, "openai-responses")
    assert type(located) is ProviderConnectionError
    assert str(located) == ('provider "local" at http://127.0.0.1:8123/v1 (openai-responses, '
                            "model m): connection to the model server failed: Connection error.")
    assert (located.provider, located.model, located.url) == (
        "local", "local/m", "http://127.0.0.1:8123/v1")
    assert located.hint is not None and "is the server running at" in located.hint
    assert located.__cause__ is raw
    assert locate_provider_error(located, LOCAL, "openai-responses") is located


@pytest.mark.parametrize(("error", "words"), [
    (ProviderConnectionError("x"), "models.providers.local.baseUrl"),
    (ProviderTimeoutError("x"), "did not answer in time"),
    (ProviderAuthError("x", status=401), "models.providers.local.apiKey"),
    (ProviderRateLimitError("x", status=429), "fallback"),
    (ProviderContextOverflowError("x"), "sessions reset"),
    (ProviderError("x", status=404), "model id"),
    (ProviderServerError("x", status=500), "try again later"),
])
def test_each_kind_of_failure_gets_a_hint(error: ProviderError, words: str) -> None:
    located = locate_provider_error(error, LOCAL, "openai-responses")
    assert located.hint is not None and words in located.hint
    assert located.status == error.status


def test_an_openai_compatible_url_without_v1_is_pointed_out() -> None:
    model = ResolvedModel("local", "m", base_url="http://127.0.0.1:8123")
    hint = locate_provider_error(ProviderConnectionError("x"), model, "openai-completions").hint
    assert hint is not None and "ends in /v1 (this one is http://127.0.0.1:8123)" in hint
    anthropic = ResolvedModel("a", "m", base_url="http://127.0.0.1:8123")
    hint = locate_provider_error(ProviderConnectionError("x"), anthropic,
                                 "anthropic-messages").hint
    assert hint is not None and "/v1" not in hint


def test_official_endpoints_and_in_process_transports() -> None:
    assert endpoint_url(ResolvedModel("openai", "gpt"), "openai-responses") == (
        "https://api.openai.com/v1")
    assert endpoint_url(ResolvedModel("scripted", "m"), "scripted") is None
    located = locate_provider_error(ProviderServerError("x"), ResolvedModel("scripted", "m"),
                                    "scripted")
    assert str(located).startswith('provider "scripted" (scripted, model m): ')


def test_credentials_in_a_base_url_are_not_shown() -> None:
    assert display_url("https://user:secret@host:8443/v1?x=1") == "https://host:8443/v1?x=1"
    model = ResolvedModel("p", "m", base_url="https://user:secret@host/v1")
    located = locate_provider_error(ProviderAuthError("no"), model, "openai-responses")
    assert "secret" not in str(located) and "secret" not in (located.url or "")


def test_sdk_timeouts_and_connection_failures_map_to_their_own_classes() -> None:
    class APITimeoutError(Exception):
        pass

    class APIConnectionError(Exception):
        pass

    assert type(map_provider_error(APITimeoutError("Request timed out."))) is ProviderTimeoutError
    assert type(map_provider_error(APIConnectionError("Connection error."))) is (
        ProviderConnectionError)
    assert isinstance(map_provider_error(APITimeoutError("x")), ProviderServerError)


def test_failure_details_are_json_keyed() -> None:
    located = locate_provider_error(ProviderAuthError("no", status=401), LOCAL,
                                    "openai-responses")
    details = provider_failure_details(located)
    assert details["type"] == "auth" and details["status"] == 401
    assert details["provider"] == "local" and details["url"] == "http://127.0.0.1:8123/v1"
    assert set(details) == {"type", "provider", "model", "url", "status", "hint"}
