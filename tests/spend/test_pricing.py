"""Usage -> USD: config prices first, then the maintained table, priced as providers bill."""

from __future__ import annotations

from decimal import Decimal

import genai_prices
import pytest

from clawharness.config import parse_config
from clawharness.spend import PriceTable, TokenCounts


def table(providers: dict[str, object] | None = None, **kwargs: bool) -> PriceTable:
    config, _ = parse_config({"models": {"providers": providers or {}}})
    return PriceTable.from_config(config, **kwargs)


@pytest.mark.parametrize(("provider", "model", "counts"), [
    ("openai", "gpt-4o", TokenCounts(input=800, output=500, cache_read=200)),
    ("openai", "gpt-5", TokenCounts(input=10_000, output=3_000, cache_read=50_000,
                                    reasoning_tokens=2_000)),
    ("anthropic", "claude-sonnet-4-5", TokenCounts(input=1_000, output=400, cache_read=300,
                                                   cache_write=700)),
    # above 200k input tokens the whole call takes Anthropic's higher tier
    ("anthropic", "claude-sonnet-4-5", TokenCounts(input=150_000, output=2_000,
                                                   cache_read=60_000, cache_write=0)),
])
def test_table_prices_match_the_package_calculation(provider: str, model: str,
                                                    counts: TokenCounts) -> None:
    cost = table().cost(provider, model, counts)
    assert cost is not None and cost.source == "price-table"
    theirs = genai_prices.calc_price(genai_prices.Usage(
        input_tokens=(counts.input or 0) + (counts.cache_read or 0) + (counts.cache_write or 0),
        cache_read_tokens=counts.cache_read, cache_write_tokens=counts.cache_write,
        output_tokens=counts.output, output_reasoning_tokens=counts.reasoning_tokens,
    ), model, provider_id=provider)
    assert Decimal(repr(cost.total)).quantize(Decimal("1e-12")) == \
        theirs.total_price.quantize(Decimal("1e-12"))
    assert cost.input + cost.cache_read + cost.cache_write == pytest.approx(
        float(theirs.input_price))
    assert cost.output == pytest.approx(float(theirs.output_price))


def test_cached_tokens_cost_less_than_uncached_ones() -> None:
    prices = table()
    uncached = prices.cost("openai", "gpt-4o", TokenCounts(input=1_000_000))
    cached = prices.cost("openai", "gpt-4o", TokenCounts(cache_read=1_000_000))
    assert uncached is not None and cached is not None
    assert uncached.total == pytest.approx(2.5)
    assert cached.total == pytest.approx(1.25)


def test_a_config_price_overrides_the_table_model_first_then_provider() -> None:
    prices = table({
        "openai": {"cost": {"input": 1, "output": 2},
                   "models": [{"id": "gpt-4o", "cost": {"input": 10, "output": 20,
                                                        "cacheRead": 5}}]},
    })
    model_row = prices.cost("openai", "gpt-4o", TokenCounts(input=1_000_000, output=1_000_000,
                                                            cache_read=1_000_000))
    assert model_row is not None and model_row.source == "config"
    assert (model_row.input, model_row.output, model_row.cache_read) == (10, 20, 5)
    assert model_row.total == 35
    provider_row = prices.cost("openai", "gpt-5", TokenCounts(input=1_000_000,
                                                              cache_write=1_000_000))
    assert provider_row is not None
    # cache writes unpriced in the config cost the input rate
    assert provider_row.total == 2


def test_a_reasoning_price_applies_to_the_reasoning_part_of_output() -> None:
    prices = table({"p": {"models": [{"id": "m", "cost": {"output": 10, "reasoning": 30}}]}})
    cost = prices.cost("p", "m", TokenCounts(output=1_000_000, reasoning_tokens=250_000))
    assert cost is not None and cost.output == pytest.approx(7.5 + 7.5)


def test_local_models_are_free_when_configured_and_unpriced_otherwise() -> None:
    prices = table({
        "ollama": {"baseUrl": "http://127.0.0.1:11434/v1", "api": "openai-completions",
                   "models": [{"id": "gpt-4o"}]},
        "lab": {"baseUrl": "http://127.0.0.1:8000/v1", "api": "openai-completions",
                "cost": {"input": 0, "output": 0}, "models": [{"id": "llama"}]},
    })
    # the name of a hosted model served locally is not charged at the hosted price
    assert prices.cost("ollama", "gpt-4o", TokenCounts(input=1000)) is None
    free = prices.cost("lab", "llama", TokenCounts(input=1000, output=1000))
    assert free is not None and free.total == 0 and free.source == "config"


def test_a_hosted_endpoint_is_priced_by_its_url() -> None:
    prices = table({"fast": {"baseUrl": "https://api.groq.com/openai/v1",
                             "api": "openai-completions", "models": [{"id": "llama-3.1-8b-instant"}]}})
    cost = prices.cost("fast", "llama-3.1-8b-instant", TokenCounts(input=1_000_000))
    assert cost is not None and cost.source == "price-table" and cost.total > 0


def test_unknown_providers_and_models_are_unpriced() -> None:
    prices = table()
    assert prices.cost("bench", "m", TokenCounts(input=5)) is None
    assert prices.cost("openai", "no-such-model-xyz", TokenCounts(input=5)) is None
    assert table(use_catalog=False).cost("openai", "gpt-4o", TokenCounts(input=5)) is None


@pytest.mark.parametrize(("provider", "model"), [
    ("openai", "gpt-4o"), ("openai", "gpt-5"), ("anthropic", "claude-sonnet-4-5"),
    ("p", "m"), ("p", "r")])
def test_a_total_alone_is_the_costs_total_to_the_last_digit(provider: str, model: str) -> None:
    prices = table({"p": {"models": [{"id": "m", "cost": {"input": 1.1, "output": 2.3,
                                                          "cacheRead": 0.3}},
                                     {"id": "r", "cost": {"output": 10, "reasoning": 30}}]}})
    rates = prices.rates(provider, model)
    assert rates is not None
    for counts in (TokenCounts(input=1_234, output=567, cache_read=89, cache_write=10,
                               reasoning_tokens=100),
                   TokenCounts(input=150_000, output=2_000, cache_read=60_000),
                   TokenCounts(input=None, output=None)):
        assert rates.total(counts) == rates.cost(counts).total


def test_an_estimate_bounds_the_cost_of_a_call() -> None:
    rates = table().rates("openai", "gpt-5")
    assert rates is not None
    estimate = rates.estimate(10_000, 4_096)
    actual = rates.cost(TokenCounts(input=10_000, output=4_096, reasoning_tokens=4_000))
    assert estimate >= actual.total > 0


def test_cost_wire_shape_is_the_originals() -> None:
    cost = table({"p": {"models": [{"id": "m", "cost": {"input": 1, "output": 2}}]}}).cost(
        "p", "m", TokenCounts(input=1_000_000, output=1_000_000))
    assert cost is not None
    assert cost.to_wire() == {"input": 1, "output": 2, "cacheRead": 0, "cacheWrite": 0,
                              "total": 3}


def test_a_bad_price_is_refused_with_where_it_is() -> None:
    from clawharness.errors import ConfigError

    with pytest.raises(ConfigError) as caught:
        parse_config({"models": {"providers": {"p": {"models": [
            {"id": "m", "cost": {"input": -1}}]}}}})
    assert "models.providers.p.models[0].cost.input" in str(caught.value)


def test_a_cost_is_a_clean_decimal_not_a_float_sum() -> None:
    # 30 in at $1/M and 60 out at $2/M: a plain float sum is 0.00015000000000000001
    prices = table({"p": {"models": [{"id": "m", "cost": {"input": 1, "output": 2}}]}})
    counts = TokenCounts(input=30, output=60)
    cost = prices.cost("p", "m", counts)
    assert cost is not None and repr(cost.total) == "0.00015"
    rates = prices.rates("p", "m")
    assert rates is not None and rates.total(counts) == cost.total

