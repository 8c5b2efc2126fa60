from __future__ import annotations

import pytest

from clawharness.errors import ModelRefError
from clawharness.names.model_refs import parse_model_ref


def test_provider_slash_model_splits_on_the_first_slash() -> None:
    ref = parse_model_ref("openrouter/anthropic/claude-x")
    assert (ref.provider, ref.model) == ("openrouter", "anthropic/claude-x")


def test_providerless_id_resolves_to_the_one_configured_provider() -> None:
    ref = parse_model_ref("gpt-x", models_by_provider={"openai": ["gpt-x"], "other": ["y"]})
    assert str(ref) == "openai/gpt-x"


def test_providerless_id_listed_by_two_providers_is_ambiguous() -> None:
    with pytest.raises(ModelRefError, match="ambiguous"):
        parse_model_ref("gpt-x", models_by_provider={"a": ["gpt-x"], "b": ["gpt-x"]})


def test_providerless_id_nobody_lists_is_an_error() -> None:
    with pytest.raises(ModelRefError, match="no provider"):
        parse_model_ref("gpt-x", models_by_provider={"a": ["y"]})


def test_unknown_provider_is_refused_when_providers_are_known() -> None:
    with pytest.raises(ModelRefError, match="unknown provider 'nope'"):
        parse_model_ref("nope/m", known_providers={"openai", "anthropic"})


@pytest.mark.parametrize("legacy", ["codex/gpt-5", "openai-codex/gpt-5", "codex-cli/gpt-5"])
def test_legacy_codex_refs_parse_and_repair_to_openai(legacy: str) -> None:
    ref = parse_model_ref(legacy, known_providers={"openai"})
    assert ref.legacy
    assert str(ref.repaired()) == "openai/gpt-5"


@pytest.mark.parametrize("bad", ["", "   ", "/model", "provider/"])
def test_malformed_refs_are_refused(bad: str) -> None:
    with pytest.raises(ModelRefError):
        parse_model_ref(bad)
