"""The Control UI's views from stored entries, records and results (pure functions)."""

from __future__ import annotations

from typing import Any

from clawharness.gateway.control_ui.schema import TextItem, ToolItem, dump
from clawharness.gateway.control_ui.views import (
    MAX_RESULT_CHARS,
    TurnFacts,
    conversation_view,
    facts_from_record,
    facts_from_result,
    first_words,
    usage_view,
)
from clawharness.store import TranscriptEntry


def entry(seq: int, role: str, content: Any, run_id: str | None = "r1",
          at: float = 1000.0) -> TranscriptEntry:
    message = {"role": role, "content": content}
    return TranscriptEntry("agent:main:s", "sid", seq, role, message,
                           {"runId": run_id} if run_id else {}, None, None, at + seq)


def test_titles_are_the_first_words_on_one_line() -> None:
    assert first_words("  fix   the\nbuild please ") == "fix the build please"
    assert first_words("one two three four five six seven eight nine") == (
        "one two three four five six seven eight…")
    long = first_words("x" * 80)
    assert len(long) == 60 and long.endswith("…")
    assert first_words("") == ""


def test_usage_in_the_transcript_spelling_with_and_without_a_cost() -> None:
    assert usage_view(None) is None and usage_view({}) is None
    plain = usage_view({"input": 10, "output": 2, "cacheRead": 4, "totalTokens": 16})
    assert plain is not None and dump(plain) == {
        "input": 10, "output": 2, "cacheRead": 4, "cacheWrite": None, "totalTokens": 16,
        "cost": None}
    costed = usage_view({"input": 1, "cost": {"input": 0.001, "output": 0.002, "total": 0.003}})
    assert costed is not None and costed.cost is not None and costed.cost.total == 0.003

    class Typed:  # a typed usage record writes its own wire shape
        def to_wire(self) -> dict[str, Any]:
            return {"input": 7, "output": 1}

    typed = usage_view(Typed())
    assert typed is not None and (typed.input, typed.output) == (7, 1) and typed.cost is None

    class Cost:
        total, input, output = 0.25, 0.2, 0.05

    class Costed(Typed):  # a typed usage whose cost is not in its wire shape
        cost = Cost()

    priced = usage_view(Costed())
    assert priced is not None and priced.cost is not None
    assert (priced.cost.total, priced.cost.input, priced.cost.output) == (0.25, 0.2, 0.05)
    assert usage_view({"input": "7"}) is None  # not a count


def test_a_conversation_groups_by_run_and_pairs_tool_calls_with_results() -> None:
    entries = [
        entry(1, "user", [{"type": "text", "text": "list the files"}]),
        entry(2, "assistant", [{"type": "text", "text": "Looking."},
                               {"type": "toolCall", "id": "c1", "name": "ls",
                                "arguments": {"path": "."}},
                               {"type": "toolCall", "id": "c2", "name": "read",
                                "arguments": {"path": "gone"}}]),
        entry(3, "toolResult", [{"type": "text", "text": "a.txt\nb.txt"}]),
        entry(4, "assistant", [{"type": "text", "text": "Two files."}]),
        entry(5, "user", "second question", run_id="r2"),
        entry(6, "assistant", [{"type": "text", "text": "Answer."}], run_id="r2"),
    ]
    # the toolResult message names its call
    entries[2] = TranscriptEntry("agent:main:s", "sid", 3, "toolResult",
                                 {"role": "toolResult", "toolCallId": "c1", "toolName": "ls",
                                  "content": [{"type": "text", "text": "a.txt\nb.txt"}],
                                  "isError": False}, {"runId": "r1"}, None, None, 1003.0)
    entries[1].content["usage"] = {"input": 100, "output": 10}
    entries[3].content["usage"] = {"input": 120, "output": 5}
    entries[3].content.update(provider="p", model="m")
    facts = {"r2": TurnFacts(duration_ms=12.0, terminal="ok", runtime="openclaw",
                             model="q/n")}
    view = conversation_view("agent:main:s", "sid", "main", entries, facts)
    first, second = view.turns
    assert (first.run_id, first.title, first.user_seq, first.started_at) == (
        "r1", "list the files", 1, 1001000)
    looking, listed, unread, answer = first.items
    assert isinstance(looking, TextItem) and looking.text == "Looking."
    assert isinstance(listed, ToolItem) and (listed.status, listed.result) == ("ok", "a.txt\nb.txt")
    assert isinstance(unread, ToolItem) and (unread.status, unread.result) == ("unfinished", None)
    assert isinstance(answer, TextItem) and answer.seq == 4
    # no facts: usage is the sum of the turn's model calls; the model from its messages
    assert first.usage is not None and (first.usage.input, first.usage.output) == (220, 15)
    assert (first.model, first.terminal, first.duration_ms) == ("p/m", None, None)
    assert (second.title, second.user_text, second.terminal, second.model) == (
        "second question", "second question", "ok", "q/n")


def test_entries_without_run_ids_split_at_each_user_message() -> None:
    entries = [entry(1, "user", "a", run_id=None), entry(2, "assistant", "b", run_id=None),
               entry(3, "user", "c", run_id=None), entry(4, "assistant", "d", run_id=None)]
    view = conversation_view("k", "sid", "main", entries, {})
    assert [(t.run_id, t.user_text) for t in view.turns] == [(None, "a"), (None, "c")]


def test_a_truncated_read_leaves_out_its_partial_first_turn_and_long_results_are_cut() -> None:
    result = {"role": "toolResult", "toolCallId": "c9", "toolName": "read",
              "content": [{"type": "text", "text": "y" * (MAX_RESULT_CHARS + 10)}],
              "isError": True}
    entries = [entry(7, "assistant", "tail of an older turn", run_id="old"),
               entry(8, "user", "new", run_id="new"),
               TranscriptEntry("k", "sid", 9, "toolResult", result, {"runId": "new"}, None,
                               None, 1.0)]
    view = conversation_view("k", "sid", "main", entries, {}, truncated=True)
    (turn,) = view.turns
    assert view.truncated and turn.run_id == "new"
    (orphan,) = turn.items
    assert isinstance(orphan, ToolItem) and orphan.status == "error" and orphan.is_error
    assert orphan.result is not None and orphan.result.endswith("(10 more characters)")


def test_facts_from_a_record_and_from_a_result() -> None:
    record = {"duration_ms": 812.5, "terminal": "failed", "runtime": "codex", "error": "boom",
              "selections": [{"model": "a/b"}, {"model": "c/d"}],
              "usage": {"input": 3, "output": 4, "totalTokens": 7}}
    facts = facts_from_record(record)
    assert (facts.duration_ms, facts.terminal, facts.runtime, facts.model, facts.error) == (
        812.5, "failed", "codex", "c/d", "boom")
    assert facts.usage is not None and facts.usage.total_tokens == 7

    from types import SimpleNamespace

    result = SimpleNamespace(usage={"input": 1, "output": 2, "cost": {"total": 0.5}},
                             duration_ms=3.0, terminal="ok", runtime="openclaw", model="x/y",
                             error=None)
    from_result = facts_from_result(result)
    assert from_result.usage is not None and from_result.usage.cost is not None
    assert (from_result.usage.cost.total, from_result.model, from_result.error) == (0.5, "x/y", None)
