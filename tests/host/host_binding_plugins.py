"""Plugin harnesses for host tests of session bindings and the transcript contract.

`counting`: keeps `{"nativeSessionId", "turns"}` per host session through
`api.session_bindings`, writes no hook of its own, and answers "turn N of <native id>".
`texts-only`: returns its reply only in `assistant_texts` (the bug the host refuses).
"""

from __future__ import annotations

import uuid

from clawharness.plugin_sdk.agent_harness import (
    AttemptParams,
    AttemptResult,
    AttemptTerminal,
    JsonObject,
    PluginApi,
    SupportContext,
    Supported,
    SupportResult,
    Unsupported,
    define_plugin_entry,
)
from clawharness.plugin_sdk.agent_harness_session_runtime import (
    BoundSession,
    RemovedBinding,
    SessionBindings,
)

#: (agent id, session key) of every binding the host removed, in order
REMOVED: list[tuple[str, str]] = []


class CountingHarness:
    id = "counting"
    label = "Counting test harness"

    def __init__(self, bindings: SessionBindings[JsonObject]) -> None:
        self.bindings = bindings

    def supports(self, ctx: SupportContext) -> SupportResult:
        if ctx.requested_runtime == self.id:
            return Supported(priority=10)
        return Unsupported(reason="explicit selection only")

    async def run_attempt(self, params: AttemptParams) -> AttemptResult:
        async def turn(bound: BoundSession[JsonObject]) -> AttemptResult:
            record = bound.record or {}
            native = record.get("nativeSessionId")
            native = native if isinstance(native, str) else uuid.uuid4().hex[:8]
            turns = record.get("turns")
            count = (turns if isinstance(turns, int) else 0) + 1
            await bound.write({"nativeSessionId": native, "turns": count})
            return AttemptResult.reply(params.session_id, f"turn {count} of {native}",
                                       agent_harness_id=self.id)

        return await self.bindings.with_turn(params, turn)


class TextsOnlyHarness:
    id = "texts-only"
    label = "Replies only in assistant_texts"

    def supports(self, ctx: SupportContext) -> SupportResult:
        return Supported() if ctx.requested_runtime == self.id else Unsupported("explicit")

    async def run_attempt(self, params: AttemptParams) -> AttemptResult:
        return AttemptResult(AttemptTerminal.ok(), params.session_id,
                             assistant_texts=["a reply nobody stores"])


def _register(api: PluginApi) -> None:
    bindings = api.session_bindings("counting")

    async def removed(binding: RemovedBinding[JsonObject]) -> None:
        REMOVED.append((binding.agent_id, binding.session_key))

    bindings.on_removed(removed)
    api.register_agent_harness(CountingHarness(bindings))
    api.register_agent_harness(TextsOnlyHarness())


entry = define_plugin_entry(id="binding-fakes", name="Binding fakes",
                            description="test plugin", register=_register)
