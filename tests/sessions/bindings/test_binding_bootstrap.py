"""The recap of the host transcript a fresh native session's first prompt carries."""

from __future__ import annotations

from typing import Any

from clawharness.sessions.bindings import DEFAULT_CONTEXT_CHARS, transcript_context
from clawharness.sessions.bindings.bootstrap import MESSAGE_CHARS


def user(text: str) -> dict[str, Any]:
    return {"role": "user", "content": [{"type": "text", "text": text}]}


def assistant(text: str, stop: str = "stop") -> dict[str, Any]:
    return {"role": "assistant", "content": [{"type": "text", "text": text}], "stopReason": stop}


def test_no_history_or_nothing_readable_gives_no_recap() -> None:
    assert transcript_context([]) is None
    assert transcript_context([{"role": "system", "content": "x"}, user("  "),
                               assistant("failed", "error")]) is None


def test_turns_come_oldest_first_with_roles_tool_calls_and_results() -> None:
    history = [
        user("list the files"),
        {"role": "assistant", "stopReason": "toolUse", "content": [
            {"type": "text", "text": "looking"},
            {"type": "toolCall", "id": "c1", "name": "exec", "arguments": {"command": "ls"}}]},
        {"role": "toolResult", "toolCallId": "c1", "toolName": "exec", "isError": True,
         "content": [{"type": "text", "text": "permission denied"}]},
        {"role": "user", "content": [{"type": "text", "text": "and this"},
                                     {"type": "image", "data": "xx", "mimeType": "image/png"}]},
        assistant("aborted reply", "aborted"),
        assistant("done"),
    ]
    recap = transcript_context(history)
    assert recap is not None
    body = recap.split("\n\n")
    assert body[0].startswith("[Earlier conversation]") and body[-1].startswith("[End of")
    assert body[1:-1] == [
        "User: list the files",
        'Assistant: looking\n[called exec with {"command": "ls"}]',
        "Tool result (exec) [error]: permission denied",
        "User: and this\n[image]",
        "Assistant: done",
    ]


def test_a_long_history_keeps_the_newest_turns_and_says_how_many_were_left_out() -> None:
    history = [user(f"question {i} " + "x" * 500) for i in range(100)]
    recap = transcript_context(history)
    assert recap is not None and len(recap) <= DEFAULT_CONTEXT_CHARS
    assert "question 99 " in recap and "question 0 " not in recap
    kept = recap.count("User: question")
    assert f"[{100 - kept} older message(s) left out" in recap


def test_one_huge_message_is_cut_not_allowed_to_take_the_budget() -> None:
    recap = transcript_context([user("start"), {"role": "toolResult", "toolName": "read",
                                                "content": [{"type": "text",
                                                             "text": "y" * 50_000}]}])
    assert recap is not None
    assert "User: start" in recap and "… [cut]" in recap
    assert "y" * MESSAGE_CHARS in recap and "y" * (MESSAGE_CHARS + 1) not in recap


def test_a_tiny_budget_still_keeps_the_end_of_the_newest_message() -> None:
    recap = transcript_context([user("old"), user("the newest words")], max_chars=420)
    assert recap is not None and "User: old" not in recap
    assert "newest words" in recap


def test_a_compacted_history_tells_its_summary_first_whatever_the_budget() -> None:
    from clawharness.context import summary_prompt_message
    history = [summary_prompt_message("the user is Ada; the code word is w3x"),
               *[user(f"message {n} " + "x" * 500) for n in range(40)]]
    recap = transcript_context(history, max_chars=4_000)
    assert recap is not None and len(recap) <= 4_200
    body = recap.split("\n\n")
    assert "the code word is w3x" in body[1]
    assert "older message(s) left out" in body[2]
    assert "message 39" in recap
