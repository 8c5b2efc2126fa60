"""Provider token usage, under whatever names a provider reports it, in one shape."""

from __future__ import annotations

from clawharness.attempt.usage import ContextUsage, NormalizedUsage, UsageCost, normalize_usage


def test_openai_cached_tokens_are_taken_out_of_input() -> None:
    usage = normalize_usage(
        {
            "prompt_tokens": 100,
            "prompt_tokens_details": {"cached_tokens": 30},
            "completion_tokens": 5,
            "cost": {"total": 0, "input": 0.5, "output": 0},
        }
    )
    assert usage == NormalizedUsage(input=70, output=5, cache_read=30,
                                    cost=UsageCost(total=0, input=0.5))


def test_anthropic_cache_counts_are_separate_from_input() -> None:
    usage = normalize_usage({"input_tokens": 10, "output_tokens": 5,
                             "cache_read_input_tokens": 2, "cache_creation_input_tokens": 4})
    assert usage == NormalizedUsage(input=10, output=5, cache_read=2, cache_write=4)


def test_a_cli_counting_cache_inside_input_reports_uncached_input() -> None:
    usage = normalize_usage({"input_tokens": 50, "cached_input_tokens": 20, "output_tokens": 1})
    assert usage is not None and usage.input == 30 and usage.cache_read == 20


def test_counts_are_clamped_and_truncated_and_strings_are_not_counts() -> None:
    usage = normalize_usage({"input_tokens": -5, "output_tokens": "3", "total": 7.9})
    assert usage == NormalizedUsage(input=0, total=7)


def test_nothing_usable_is_none() -> None:
    assert normalize_usage({}) is None
    assert normalize_usage(None) is None
    assert normalize_usage([1, 2]) is None
    assert normalize_usage({"cost": {"total": -1}}) is None


def test_context_usage_needs_consistent_figures() -> None:
    ok = normalize_usage({"contextUsage": {"state": "available", "promptTokens": 5,
                                           "totalTokens": 9}})
    assert ok is not None and ok.context_usage == ContextUsage("available", 5, 9)
    inverted = normalize_usage({"input": 1, "contextUsage": {"state": "available",
                                                              "promptTokens": 9, "totalTokens": 5}})
    assert inverted is not None and inverted.context_usage is None
    unavailable = normalize_usage({"contextUsage": {"state": "unavailable"}})
    assert unavailable == NormalizedUsage(context_usage=ContextUsage("unavailable"))
