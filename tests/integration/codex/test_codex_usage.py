"""A real Codex turn's token counts as the host records them: Codex counts cached input
inside its input figure (as OpenAI does); the turn's usage has it apart, so it is priced
once, at the cache-read rate; its reasoning tokens are counted (docs/budgets.md)."""

from __future__ import annotations

import pytest
from codex_rig import MakeRig

from clawharness.records import normalize_usage

pytestmark = pytest.mark.integration


async def test_cached_input_is_counted_apart_from_uncached_input(make_rig: MakeRig) -> None:
    rig = await make_rig({"responses": [{"text": "ok", "usage": {
        "input_tokens": 1000, "cached_input_tokens": 800, "output_tokens": 100,
        "reasoning_tokens": 40}}]})
    attempt = rig.attempt("hello")
    result = await rig.harness.run_attempt(attempt.params)
    assert result.terminal.kind == "ok"
    usage = normalize_usage(result.attempt_usage)
    assert usage is not None
    assert (usage.input, usage.cache_read, usage.output) == (200, 800, 100)
    # the part of the output spent reasoning, for a reasoning price
    assert usage.reasoning_tokens == 40
