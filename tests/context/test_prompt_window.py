"""The pure rules of a prompt's history: the summary's view, where a compaction cuts,
pruning of old tool results and the last-resort fit to the budget."""

from __future__ import annotations

from typing import Any

from clawharness.config.context import ContextPruningConfig
from clawharness.context import (
    SUMMARY_ROLE,
    PruningRules,
    TokenCounter,
    estimate_message_tokens,
    fit_to_budget,
    is_summary_message,
    prompt_view,
    prune_tool_results,
    reply_reserve,
    select_cut,
    summary_entry,
)


def user(text: str) -> dict[str, Any]:
    return {"role": "user", "content": [{"type": "text", "text": text}]}


def call(call_id: str, text: str = "") -> dict[str, Any]:
    blocks: list[dict[str, Any]] = [{"type": "text", "text": text}] if text else []
    blocks.append({"type": "toolCall", "id": call_id, "name": "read",
                   "arguments": {"path": "a.txt"}})
    return {"role": "assistant", "content": blocks, "stopReason": "toolUse"}


def result(call_id: str, text: str) -> dict[str, Any]:
    return {"role": "toolResult", "toolCallId": call_id, "toolName": "read",
            "content": [{"type": "text", "text": text}], "isError": False}


def reply(text: str) -> dict[str, Any]:
    return {"role": "assistant", "content": [{"type": "text", "text": text}],
            "stopReason": "stop"}


def test_the_estimate_is_three_characters_a_token_plus_framing() -> None:
    assert estimate_message_tokens(user("x" * 300)) == 104
    assert estimate_message_tokens(call("c1")) > 4


def test_the_reply_reserve_is_the_largest_setting_capped_at_half_the_window() -> None:
    assert reply_reserve(8_192, reserve_tokens=16_384, reserve_floor=20_000,
                         max_tokens=None) == 4_096
    assert reply_reserve(200_000, reserve_tokens=16_384, reserve_floor=20_000,
                         max_tokens=32_000) == 32_000
    assert reply_reserve(200_000, reserve_tokens=1_000, reserve_floor=0,
                         max_tokens=None) == 1_000


def test_without_a_summary_the_window_is_the_prompt() -> None:
    window = [user("a"), reply("b")]
    messages, origins = prompt_view(window)
    assert messages == window and origins == [0, 1]


def test_a_summary_keeps_its_kept_entries_and_everything_after_it() -> None:
    window = [user("old"), reply("old answer"), user("kept"), reply("kept answer"),
              summary_entry("the summary", kept_entries=2, tokens_before=100),
              user("new")]
    messages, origins = prompt_view(window)
    assert is_summary_message(messages[0]) and "the summary" in messages[0]["content"][0]["text"]
    assert messages[0]["role"] == "user"
    assert messages[1:] == [window[2], window[3], window[5]]
    assert origins == [-1, 2, 3, 5]


def test_only_the_latest_summary_counts_and_older_ones_are_not_sent() -> None:
    first = summary_entry("first", kept_entries=1, tokens_before=10)
    second = summary_entry("second", kept_entries=3, tokens_before=10)
    window = [user("a"), first, user("b"), reply("c"), second, user("d")]
    messages, _ = prompt_view(window)
    assert "second" in messages[0]["content"][0]["text"]
    assert [m for m in messages if m.get("role") == SUMMARY_ROLE] == []
    assert messages[1:] == [window[2], window[3], window[5]]


def test_a_window_starting_inside_a_kept_tool_round_drops_the_orphan_result() -> None:
    window = [result("c1", "x"), reply("done"),
              summary_entry("s", kept_entries=5, tokens_before=10)]
    messages, _ = prompt_view(window)
    assert messages[1:] == [window[1]]


def test_the_cut_never_splits_a_tool_call_from_its_result() -> None:
    counter = TokenCounter()
    messages = [user("first " * 50), call("c1"), result("c1", "r" * 400),
                call("c2"), result("c2", "s" * 400), reply("done " * 20), user("next")]
    for keep in range(1, 600, 7):
        cut = select_cut(messages, keep, counter)
        assert cut is not None and cut >= 1
        assert messages[cut]["role"] in ("user", "assistant")


def test_the_cut_prefers_a_user_message_that_keeps_the_tail_within_keep() -> None:
    counter = TokenCounter()
    messages = [user("a" * 400), reply("b" * 400), user("c" * 40), reply("d" * 40)]
    assert select_cut(messages, 40, counter) == 2
    # nothing fits: the newest cut, to summarise as much as can be
    assert select_cut(messages, 1, counter) == 3
    assert select_cut([user("only")], 100, counter) is None


def test_old_large_tool_results_are_trimmed_in_the_prompt_only() -> None:
    rules = PruningRules.from_config(ContextPruningConfig.model_validate(
        {"keepLastAssistants": 1, "softTrim": {"maxChars": 100, "headChars": 10,
                                               "tailChars": 10}}))
    big = result("c1", "H" * 10 + "m" * 500 + "T" * 10)
    recent = result("c2", "n" * 500)
    messages = [user("q"), call("c1"), big, call("c2"), recent]
    pruned = prune_tool_results(messages, rules)
    text = pruned[2]["content"][0]["text"]
    assert text.startswith("H" * 10) and text.endswith("T" * 10) and "500 characters" in text
    assert big["content"][0]["text"].count("m") == 500  # the stored message is unchanged
    assert pruned[4] is recent  # protected: the newest assistant turn's result
    assert pruned[0] is messages[0]


def test_pruning_off_changes_nothing() -> None:
    rules = PruningRules.from_config(ContextPruningConfig.model_validate({"mode": "off"}))
    messages = [user("q"), call("c1"), result("c1", "x" * 50_000), reply("a"), user("b"),
                reply("c"), user("d"), reply("e"), user("f")]
    assert prune_tool_results(messages, rules) == messages


def test_fitting_to_the_budget_clears_old_results_then_drops_the_oldest_at_a_cut() -> None:
    counter = TokenCounter()
    rules = PruningRules(keep_last_assistants=1)
    messages = [user("a" * 4_000), call("c1"), result("c1", "r" * 4_000), reply("b"),
                user("c" * 400), reply("d"), user("now")]
    fitted = fit_to_budget(messages, 200, counter, rules)
    assert counter.messages(fitted) <= 200
    assert fitted[-1] is messages[-1]
    assert fitted[0]["role"] in ("user", "assistant")
    # a budget that holds it all changes nothing
    assert fit_to_budget(messages, 100_000, counter, rules) == messages
