"""Provider token usage, under whatever names a provider reports it, in one shape."""

from __future__ import annotations

import pytest

from clawharness.records.usage import ContextUsage, Usage, UsageCost, normalize_usage


def test_openai_cached_tokens_are_taken_out_of_input() -> None:
    usage = normalize_usage(
        {
            "prompt_tokens": 100,
            "prompt_tokens_details": {"cached_tokens": 30},
            "completion_tokens": 5,
            "cost": {"total": 0, "input": 0.5, "output": 0},
        }
    )
    assert usage == Usage(input=70, output=5, cache_read=30,
                                    cost=UsageCost(total=0, input=0.5))


def test_anthropic_cache_counts_are_separate_from_input() -> None:
    usage = normalize_usage({"input_tokens": 10, "output_tokens": 5,
                             "cache_read_input_tokens": 2, "cache_creation_input_tokens": 4})
    assert usage == Usage(input=10, output=5, cache_read=2, cache_write=4)


def test_a_cli_counting_cache_inside_input_reports_uncached_input() -> None:
    usage = normalize_usage({"input_tokens": 50, "cached_input_tokens": 20, "output_tokens": 1})
    assert usage is not None and usage.input == 30 and usage.cache_read == 20


def test_counts_are_clamped_and_truncated_and_strings_are_not_counts() -> None:
    usage = normalize_usage({"input_tokens": -5, "output_tokens": "3", "total": 7.9})
    assert usage == Usage(input=0, total=7)


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
    assert unavailable == Usage(context_usage=ContextUsage("unavailable"))


def test_the_wire_shape_is_the_original_transcript_usage_with_absent_counts_left_out() -> None:
    assert Usage.zero().to_wire() == {"input": 0, "output": 0, "cacheRead": 0, "totalTokens": 0}
    assert Usage(input=3, cache_write=2).to_wire() == {"input": 3, "cacheWrite": 2}
    # the wire shape reads back as the same usage
    usage = Usage(input=12, output=5, cache_read=1, cache_write=2, total=17)
    assert normalize_usage(usage.to_wire()) == usage


def test_a_transport_call_counts_every_token_as_its_total() -> None:
    # input is uncached input; cache reads and writes are beside it, and in the total
    # (the original's totalTokens)
    assert Usage.counted(10, 4) == Usage(input=10, output=4, total=14)
    assert Usage.counted(10, 4, 3).to_wire() == {"input": 10, "output": 4, "cacheRead": 3,
                                                 "totalTokens": 17}
    assert Usage.counted(10, 4, 3, 2).to_wire() == {
        "input": 10, "output": 4, "cacheRead": 3, "cacheWrite": 2, "totalTokens": 19}


def test_totals_add_each_reported_count_and_keep_unreported_ones_absent() -> None:
    totals = Usage.zero().plus(Usage.counted(10, 4)).plus(Usage(input=1, cache_write=2))
    assert totals == Usage(input=11, output=4, cache_read=0, cache_write=2, total=14)
    assert Usage().plus(Usage()) == Usage()


def test_counted_and_plus_make_a_plain_frozen_usage_as_the_constructor_does() -> None:
    # (both make theirs without the dataclass `__init__`: the object must be a `Usage`,
    # frozen, equal and hashed alike, and copy and pickle as one)
    import copy
    import dataclasses
    import pickle

    made = Usage.counted(10, 4, 3, reasoning=2)
    summed = Usage(input=1, cost=UsageCost(0.5),
                   context_usage=ContextUsage("unavailable"), cache_write_1h=7).plus(made)
    for usage, expected in (
            (made, Usage(input=10, output=4, cache_read=3, total=17, reasoning_tokens=2)),
            (summed, Usage(input=11, output=4, cache_read=3, total=17, cache_write_1h=7,
                           reasoning_tokens=2))):
        assert type(usage) is Usage
        assert usage == expected and hash(usage) == hash(expected)
        assert repr(usage) == repr(expected)
        assert pickle.loads(pickle.dumps(usage)) == expected == copy.copy(usage)
        assert dataclasses.replace(usage, input=0) == dataclasses.replace(expected, input=0)
        with pytest.raises(dataclasses.FrozenInstanceError):
            usage.input = 0  # type: ignore[misc]
