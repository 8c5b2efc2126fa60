"""A plugin harness that mirrors the prompt and then ignores its deadline (for the turn
runner's backstop timeout)."""

from __future__ import annotations

import asyncio
from typing import Any

from clawharness.plugin_sdk.agent_harness import (
    AttemptParams,
    AttemptResult,
    SupportContext,
    Supported,
    Unsupported,
    define_plugin_entry,
)


class StubbornHarness:
    id = "stubborn"
    label = "Ignores its deadline"

    def supports(self, ctx: SupportContext) -> Supported | Unsupported:
        if ctx.requested_runtime == self.id:
            return Supported()
        return Unsupported("explicit only")

    async def run_attempt(self, params: AttemptParams) -> AttemptResult:
        assert params.mirror is not None
        await params.mirror([{"role": "user",
                              "content": [{"type": "text", "text": params.prompt}]}])
        await asyncio.Event().wait()  # never answers, whatever params.deadline says
        raise AssertionError("unreachable")


def _register(api: Any) -> None:
    api.register_agent_harness(StubbornHarness())


entry = define_plugin_entry(id="host-stubborn", name="Stubborn", description="test plugin",
                            register=_register)
