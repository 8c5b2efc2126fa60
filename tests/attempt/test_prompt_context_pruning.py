"""A built-in attempt's prompt context trims old tool results exactly as
`prune_tool_results` does, while its context grows call by call or is replaced."""

from __future__ import annotations

import random
from typing import Any, cast

from clawharness.attempt.compaction import TurnPromptContext
from clawharness.context import PruningRules, prune_tool_results
from clawharness.harness.types import Message


async def _append(_: dict[str, Any]) -> int | None:
    return None


def _message(rng: random.Random, n: int) -> dict[str, Any]:
    role = rng.choice(["user", "assistant", "toolResult", "toolResult"])
    size = rng.choice([5, 40, 120])
    content: Any = [{"type": "text", "text": f"{n}:" + "x" * size}]
    if role == "toolResult" and rng.random() < 0.2:
        content = "y" * size  # a plain string result
    if role == "toolResult" and rng.random() < 0.1:
        content = [{"type": "image", "data": "..."}]  # not text: never trimmed
    return {"role": role, "content": content, "toolCallId": str(n)}


def _context(rules: PruningRules) -> TurnPromptContext:
    return TurnPromptContext([], budget=None, rules=rules, plan=None, append=_append)


def test_a_growing_context_is_trimmed_as_prune_tool_results_trims_it() -> None:
    for seed in range(40):
        rng = random.Random(seed)
        rules = PruningRules(keep_last_assistants=rng.choice([0, 1, 2, 3]), max_chars=50,
                             head_chars=rng.choice([4, 30]), tail_chars=rng.choice([0, 4]),
                             enabled=seed % 10 != 0)
        prompt = _context(rules)
        context: list[dict[str, Any]] = []
        for n in range(30):
            context.extend(_message(rng, n * 3 + i) for i in range(rng.randint(0, 3)))
            if rng.random() < 0.1:
                context = list(context[rng.randint(0, len(context)):])  # a new, shorter list
            shaped = prompt.shape(cast("list[Message]", context))
            assert shaped == prune_tool_results(context, rules), (seed, n)
            assert shaped is not context
            assert all(a is b for a, b in zip(shaped, context, strict=True)
                       if a.get("role") != "toolResult")


def test_a_list_whose_last_read_message_was_swapped_is_read_again() -> None:
    rules = PruningRules(keep_last_assistants=1, max_chars=10, head_chars=2, tail_chars=2)
    prompt = _context(rules)
    long = {"role": "toolResult", "content": [{"type": "text", "text": "z" * 40}]}
    context: list[dict[str, Any]] = [{"role": "user", "content": "q"}, long,
                                      {"role": "assistant", "content": []}]
    assert prompt.shape(cast("list[Message]", context))[1] != long
    # (the same list at the same length is taken as unchanged: the list grows too)
    context[-1] = {"role": "user", "content": "not an assistant"}
    context.append({"role": "user", "content": "more"})
    assert prompt.shape(cast("list[Message]", context)) == prune_tool_results(context, rules)
    assert prompt.shape(cast("list[Message]", context))[1] is long
