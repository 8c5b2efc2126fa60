"""API keys from `${ENV}` references, and choosing a transport by `api`."""

from __future__ import annotations

from pathlib import Path

import pytest

from clawharness.errors import ProviderAuthError, ProviderError
from clawharness.harness.types import ResolvedModel
from clawharness.providers import resolve_api, resolve_api_key, transport_for
from clawharness.providers.anthropic_messages import AnthropicMessagesTransport
from clawharness.providers.credentials import redact
from clawharness.providers.openai_chat import OpenAIChatTransport
from clawharness.providers.openai_responses import OpenAIResponsesTransport
from clawharness.providers.registry import reset_scripted_transports
from clawharness.providers.scripted import ScriptedTransport


def test_literal_key_is_used_as_is() -> None:
    assert resolve_api_key("sk-literal") == "sk-literal"
    assert resolve_api_key(None) is None


def test_env_reference_expands() -> None:
    assert resolve_api_key("${MY_KEY}", {"MY_KEY": "sk-from-env"}) == "sk-from-env"
    assert resolve_api_key("Bearer ${A}-${B}", {"A": "x", "B": "y"}) == "Bearer x-y"


def test_missing_env_names_the_variable_not_a_value() -> None:
    with pytest.raises(ProviderAuthError) as caught:
        resolve_api_key("${NOPE_KEY}", {"OTHER": "sk-secret-value"})
    assert "${NOPE_KEY}" in str(caught.value)
    assert "sk-secret-value" not in str(caught.value)


def test_redact_hides_secrets() -> None:
    assert redact("key sk-abcdef used", "sk-abcdef") == "key *** used"


def test_api_is_inferred_when_undeclared() -> None:
    assert resolve_api(ResolvedModel("anthropic", "c")) == "anthropic-messages"
    assert resolve_api(ResolvedModel("openai", "g")) == "openai-responses"
    assert resolve_api(ResolvedModel("ollama", "llama")) == "openai-completions"
    assert resolve_api(ResolvedModel("x", "y", api="anthropic-messages")) == "anthropic-messages"


async def test_transport_by_api() -> None:
    base = "http://127.0.0.1:9/v1"
    cases = {
        "openai-responses": OpenAIResponsesTransport,
        "openai-completions": OpenAIChatTransport,
        "anthropic-messages": AnthropicMessagesTransport,
    }
    for api, kind in cases.items():
        assert isinstance(transport_for(ResolvedModel("p", "m", api=api, base_url=base), "k"),
                          kind)


async def test_sdk_clients_are_shared_per_loop_and_key() -> None:
    model = ResolvedModel("p", "m", api="openai-completions", base_url="http://127.0.0.1:9/v1")
    a = transport_for(model, "key-1")
    b = transport_for(model, "key-1")
    c = transport_for(model, "key-2")
    assert a._client is b._client  # type: ignore[attr-defined]
    assert a._client is not c._client  # type: ignore[attr-defined]


def test_unknown_api_is_refused() -> None:
    with pytest.raises(ProviderError, match="smoke-signals"):
        transport_for(ResolvedModel("p", "m", api="smoke-signals"), None)


def test_scripted_needs_a_script() -> None:
    with pytest.raises(ProviderError, match="names no script"):
        transport_for(ResolvedModel("p", "m", api="scripted"), None)


async def test_scripted_transport_is_shared_so_turns_walk_the_script(tmp_path: Path) -> None:
    reset_scripted_transports()
    script = tmp_path / "s.json"
    script.write_text('{"responses": [{"text": "first"}, {"text": "second"}]}')
    model = ResolvedModel("p", "m", api="scripted", params={"script": str(script)})
    first = transport_for(model, None)
    assert isinstance(first, ScriptedTransport)
    assert transport_for(model, None) is first
    inline = ResolvedModel("p", "m", api="scripted", base_url=f"scripted:{script}")
    assert transport_for(inline, None) is first
    reset_scripted_transports()
    assert transport_for(model, None) is not first
