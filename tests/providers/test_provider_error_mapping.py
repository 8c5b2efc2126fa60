"""Provider failures surface as the ProviderError tree, for every transport."""

from __future__ import annotations

from typing import Any

import pytest

from clawharness.errors import (
    ProviderAuthError,
    ProviderContextOverflowError,
    ProviderError,
    ProviderRateLimitError,
    ProviderServerError,
)
from clawharness.harness.types import ResolvedModel
from clawharness.providers import STREAM_CUT_MESSAGE, ModelRequest, transport_for
from clawharness.providers.base import error_for_status, map_provider_error
from clawharness.providers.scripted import ScriptedTransport
from clawharness.testing import ScriptedModelServer

APIS = ["openai-responses", "openai-completions", "anthropic-messages", "scripted"]
REQUEST = ModelRequest("m", None, [{"role": "user", "content": [{"type": "text", "text": "x"}]}])

CASES = [
    ({"status": 401, "message": "bad key"}, ProviderAuthError),
    ({"status": 403, "message": "forbidden"}, ProviderAuthError),
    ({"status": 429, "message": "slow down"}, ProviderRateLimitError),
    ({"status": 400, "message": "This model's maximum context length is 8192 tokens"},
     ProviderContextOverflowError),
    ({"status": 400, "message": "prompt is too long: 300000 tokens > 200000 maximum"},
     ProviderContextOverflowError),
    ({"status": 500, "message": "internal"}, ProviderServerError),
    ({"status": 503, "message": "unavailable"}, ProviderServerError),
    ({"status": 404, "message": "no such model"}, ProviderError),
]


async def drain(api: str, script: dict[str, Any]) -> list[Any]:
    if api == "scripted":
        transport: Any = ScriptedTransport(script)
        return [e async for e in transport.stream(REQUEST)]
    async with ScriptedModelServer(script) as server:
        url = server.url if api == "anthropic-messages" else server.base_url_openai
        transport = transport_for(ResolvedModel("t", "m", api=api, base_url=url), "k")
        return [e async for e in transport.stream(REQUEST)]


@pytest.mark.parametrize("api", APIS)
@pytest.mark.parametrize(("error", "expected"), CASES)
async def test_http_errors_map_to_provider_errors(
    api: str, error: dict[str, Any], expected: type[ProviderError]
) -> None:
    with pytest.raises(ProviderError) as caught:
        await drain(api, {"responses": [{"error": error}]})
    assert type(caught.value) is expected
    assert caught.value.status == error["status"]
    assert error["message"] in str(caught.value)


@pytest.mark.parametrize("api", APIS)
async def test_stream_cut_is_a_server_error(api: str) -> None:
    with pytest.raises(ProviderServerError, match=STREAM_CUT_MESSAGE):
        await drain(api, {"responses": [{"cut": True, "text": "partial answer here"}]})


@pytest.mark.parametrize("api", ["openai-responses", "openai-completions", "anthropic-messages"])
async def test_unreachable_server_is_a_server_error(api: str) -> None:
    transport = transport_for(ResolvedModel("t", "m", api=api, base_url="http://127.0.0.1:9"), "k")
    with pytest.raises(ProviderServerError, match="connection"):
        [e async for e in transport.stream(REQUEST)]


def test_streamed_error_types_classify_without_status() -> None:
    assert isinstance(error_for_status(None, "x", error_type="overloaded_error"),
                      ProviderServerError)
    assert isinstance(error_for_status(None, "x", error_type="rate_limit_error"),
                      ProviderRateLimitError)
    assert isinstance(error_for_status(None, "x", error_type="context_length_exceeded"),
                      ProviderContextOverflowError)
    assert isinstance(error_for_status(529, "Overloaded"), ProviderServerError)


def test_unknown_exceptions_become_plain_provider_errors() -> None:
    mapped = map_provider_error(RuntimeError("weird"))
    assert type(mapped) is ProviderError
    assert "weird" in str(mapped)
    already = ProviderAuthError("x")
    assert map_provider_error(already) is already


def test_llama_cpp_context_overflow_is_a_context_overflow() -> None:
    # llama.cpp's server (what the real-model tests run) words it its own way
    message = ("request (722 tokens) exceeds the available context size (512 tokens), "
               "try increasing it")
    assert isinstance(error_for_status(400, message, error_type="exceed_context_size_error"),
                      ProviderContextOverflowError)
    assert isinstance(error_for_status(400, "x", error_type="exceed_context_size_error"),
                      ProviderContextOverflowError)
    assert isinstance(error_for_status(400, message), ProviderContextOverflowError)
