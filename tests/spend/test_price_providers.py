"""`price_providers` answers which providers the price table knows as the table itself
does, for the installed version, so an unpriceable local model costs no import of it."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import genai_prices
import pytest
from genai_prices import data_snapshot

from clawharness.spend import price_providers
from clawharness.spend.price_providers import PROVIDERS, TABLE_VERSION, table_may_know


def test_the_table_is_the_installed_packages() -> None:
    # on a new genai-prices: `python -m clawharness.spend.price_providers`, paste it
    assert genai_prices.__version__ == TABLE_VERSION
    assert price_providers.describe_providers() == PROVIDERS


def _ids() -> list[str]:
    snapshot = data_snapshot.get_snapshot()
    known = [p.id for p in snapshot.providers]
    spelled = ["OpenAI", " Anthropic ", "azure-openai", "bedrock-us", "amazon", "vertex_ai",
               "gemini", "huggingface-groq", "groq", "meta", "Meta-Llama", "mistralai",
               "my-mistral", "together-ai", "together", "xai", "x-ai", "litellm", "voyage"]
    unknown = ["scripted", "ollama", "lmstudio", "vllm", "lab", "local", "bench", "fast", ""]
    return known + spelled + unknown


@pytest.mark.parametrize("provider_id", _ids())
def test_it_answers_as_the_table_finds_a_provider_by_id(provider_id: str) -> None:
    found = data_snapshot.find_provider_by_id(data_snapshot.get_snapshot().providers,
                                              provider_id)
    if provider_id.strip().lower() == "litellm":
        assert table_may_know(provider_id)  # the table reads it from the model name
    else:
        assert table_may_know(provider_id) is (found is not None)


def test_another_table_version_is_always_looked_up(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(price_providers, "TABLE_VERSION", "0.0.0-other")
    assert table_may_know("scripted")


def test_a_local_model_of_a_provider_the_table_does_not_know_imports_no_table() -> None:
    code = (
        "import sys, json\n"
        "from clawharness.config import parse_config\n"
        "from clawharness.spend import PriceTable, TokenCounts\n"
        "config, _ = parse_config({'models': {'providers': {'scripted': {\n"
        "    'baseUrl': 'http://127.0.0.1:9/v1', 'api': 'openai-responses',\n"
        "    'models': [{'id': 'gpt-4o'}]}}}})\n"
        "cost = PriceTable.from_config(config).cost('scripted', 'gpt-4o', TokenCounts(input=9))\n"
        "print(json.dumps([cost is None, 'genai_prices' in sys.modules]))\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith("COV")}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=env, check=True, timeout=120)
    assert json.loads(out.stdout.strip().splitlines()[-1]) == [True, False]
