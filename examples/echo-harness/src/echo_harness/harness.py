"""The echo harness: a native runtime in miniature.

A real native harness drives an agent process that keeps its own sessions; this one
pretends to. Per host session it keeps a *binding* (which native session serves it and
how many turns that session has run) and answers each prompt from that session:

    echo: <prompt> (turn <n> of native session <id>)

Everything it needs comes from `clawharness.plugin_sdk`.
"""

from __future__ import annotations

import inspect
import uuid

from clawharness.plugin_sdk.agent_harness import (
    AgentEvent,
    AttemptParams,
    AttemptResult,
    JsonObject,
    SupportContext,
    Supported,
    SupportResult,
    Unsupported,
)
from clawharness.plugin_sdk.agent_harness_session_runtime import (
    BoundSession,
    SessionBindings,
)

__all__ = ["HARNESS_ID", "EchoHarness"]

HARNESS_ID = "echo"


class EchoHarness:
    """Claims routes that declare `echo` compatible; one native session per host session."""

    id = HARNESS_ID
    label = "Echo (example native harness)"

    def __init__(self, bindings: SessionBindings[JsonObject]) -> None:
        # the host resets and deletes these with each session: no reset hook here
        self.bindings = bindings

    def supports(self, ctx: SupportContext) -> SupportResult:
        facts = ctx.model_provider
        policy = facts.runtime_policy if facts is not None else None
        if policy is None or HARNESS_ID not in policy.compatible_ids:
            # an absent route policy is never permission
            return Unsupported(reason="the route does not declare the echo runtime")
        if facts is not None and facts.request_transport_overrides == "present":
            return Unsupported(reason="echo cannot reproduce authored request overrides")
        return Supported(priority=100, reason="the route declares echo")

    async def run_attempt(self, params: AttemptParams) -> AttemptResult:
        async def turn(bound: BoundSession[JsonObject]) -> AttemptResult:
            record = bound.record or {}
            native = record.get("nativeSessionId")
            if not isinstance(native, str):
                native = uuid.uuid4().hex[:12]  # a "native session" starts here
            served = record.get("turns")
            count = (served if isinstance(served, int) else 0) + 1
            text = f"echo: {params.prompt} (turn {count} of native session {native})"
            await self._event(params, AgentEvent("lifecycle", {"phase": "start",
                                                               "nativeSessionId": native}))
            if params.on_partial_reply is not None:
                streamed = params.on_partial_reply(text)
                if inspect.isawaitable(streamed):
                    await streamed
            bound.assert_lease()  # still ours right before the native state changes
            await bound.write({"nativeSessionId": native, "turns": count})
            # one assistant message in the transcript, and the same text as the reply
            result = AttemptResult.reply(params.session_id, text, agent_harness_id=HARNESS_ID,
                                         provider=params.provider, model=params.model_id)
            result.extra["nativeSessionId"] = native  # the native session that served it
            return result

        return await self.bindings.with_turn(params, turn)

    @staticmethod
    async def _event(params: AttemptParams, event: AgentEvent) -> None:
        if params.on_agent_event is not None:
            emitted = params.on_agent_event(event)
            if inspect.isawaitable(emitted):
                await emitted
