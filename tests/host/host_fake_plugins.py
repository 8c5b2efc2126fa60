"""A small plugin harness for host tests: runs one tool natively and writes no text."""

from __future__ import annotations

from typing import Any, ClassVar

from clawharness.plugin_sdk.agent_harness import (
    AttemptParams,
    AttemptResult,
    AttemptTerminal,
    SupportContext,
    Supported,
    Unsupported,
    define_plugin_entry,
)

CALLS: dict[str, int] = {"finalize": 0, "agent_end": 0}


class QuietHarness:
    id = "quiet"
    label = "Quiet test harness"

    def supports(self, ctx: SupportContext) -> Supported | Unsupported:
        if ctx.provider == "scripted":
            return Supported(priority=10)
        return Unsupported("not scripted")

    async def run_attempt(self, params: AttemptParams) -> AttemptResult:
        decision = await params.host_capabilities.run_before_tool_call(
            "exec", {"command": "true"}, tool_call_id="n1")
        if params.observe_tool_terminal is not None:
            params.observe_tool_terminal({
                "toolCallId": "n1", "toolName": "exec", "arguments": {"command": "true"},
                "executionStarted": decision.allowed, "outcome": "success", "result": {},
            })
        return AttemptResult(
            AttemptTerminal.ok(), params.session_id,
            tool_metas=[{"toolName": "exec", "toolCallId": "n1"}],
            settled_turn_finalization_context={"source": "harness", "data": {"thread": "t"}},
        )


class FinalizingHarness(QuietHarness):
    id = "finalizing"
    label = "Finalizing test harness"

    def supports(self, ctx: SupportContext) -> Supported | Unsupported:
        if ctx.requested_runtime == self.id:
            return Supported()
        return Unsupported("explicit only")

    async def finalize_settled_turn(self, *, attempt: Any, settled_attempt: Any) -> dict[str, Any]:
        CALLS["finalize"] += 1
        assert attempt.tools == () or list(attempt.tools) == []
        return {"assistant": {"role": "assistant", "stopReason": "stop",
                              "content": [{"type": "text", "text": "all done"}]}}


def _agent_end(event: dict[str, Any], ctx: dict[str, Any]) -> None:
    CALLS["agent_end"] += 1
    raise RuntimeError("a broken agent_end hook")


def _register(api: Any) -> None:
    api.register_agent_harness(QuietHarness())
    api.register_agent_harness(FinalizingHarness())
    api.on_agent_end(_agent_end)


entry = define_plugin_entry(id="host-fakes", name="Host fakes", description="test plugin",
                            register=_register)


def _shout(event: dict[str, Any], ctx: dict[str, Any]) -> dict[str, Any]:
    result = dict(event["result"])
    result["content"] = [{"type": "text", "text": c.get("text", "").upper()}
                         for c in result.get("content", []) if isinstance(c, dict)]
    return {"result": result}


def _register_middleware(api: Any) -> None:
    api.register_agent_tool_result_middleware(_shout, runtimes=["openclaw"], matcher=["read"])


middleware_entry = define_plugin_entry(
    id="shouting-middleware", name="Shouting middleware", description="test middleware",
    register=_register_middleware, contracts={"agentToolResultMiddleware": ["openclaw"]})


class PreflightHarness:
    """Fails before any model work; `scope` decides what the fallback chain skips."""

    def __init__(self, harness_id: str, scope: str | None) -> None:
        self.id = harness_id
        self.label = f"Preflight {harness_id}"
        self.scope = scope

    def supports(self, ctx: SupportContext) -> Supported | Unsupported:
        return Supported() if ctx.requested_runtime == self.id else Unsupported("explicit")

    async def run_attempt(self, params: AttemptParams) -> AttemptResult:
        from clawharness.plugin_sdk.agent_harness_runtime import AgentHarnessPreflightError

        CALLS[self.id] = CALLS.get(self.id, 0) + 1
        raise AgentHarnessPreflightError("native binary missing", {"scope": self.scope})


class ExplodingHarness(PreflightHarness):
    async def run_attempt(self, params: AttemptParams) -> AttemptResult:
        CALLS[self.id] = CALLS.get(self.id, 0) + 1
        raise RuntimeError("the native runtime crashed mid-turn")


def _register_preflight(api: Any) -> None:
    api.register_agent_harness(PreflightHarness("scoped", "harness"))
    api.register_agent_harness(PreflightHarness("unscoped", None))
    api.register_agent_harness(ExplodingHarness("exploding", None))


preflight_entry = define_plugin_entry(id="preflight-fakes", name="Preflight fakes",
                                      description="test plugin", register=_register_preflight)


class AskingHarness:
    """Asks the user one question through the host and answers with the reply."""

    id = "asking"
    label = "Asking test harness"

    def supports(self, ctx: SupportContext) -> Supported | Unsupported:
        return Supported() if ctx.requested_runtime == self.id else Unsupported("explicit")

    async def run_attempt(self, params: AttemptParams) -> AttemptResult:
        assert params.request_user_input is not None
        answers = await params.request_user_input(
            [{"id": "color", "header": "Color", "question": "Which color?",
              "options": [{"label": "red"}, {"label": "blue"}]}], 30)
        picked = answers["answers"].get("color", {}).get("answers", [])
        text = "you picked " + (", ".join(picked) or "nothing")
        message = {"role": "assistant", "content": [{"type": "text", "text": text}],
                   "stopReason": "stop"}
        return AttemptResult(AttemptTerminal.ok(), params.session_id, messages_snapshot=[message],
                             assistant_texts=[text], last_assistant=message)


def _register_asking(api: Any) -> None:
    api.register_agent_harness(AskingHarness())


asking_entry = define_plugin_entry(id="asking-fakes", name="Asking fakes",
                                   description="test plugin", register=_register_asking)


class OwnerHarness(QuietHarness):
    """Trusts the `voice` plugin to run its model-locked sessions."""

    id = "owner"
    label = "Owner test harness"
    delegated_execution_plugin_ids = ("voice",)

    def supports(self, ctx: SupportContext) -> Supported | Unsupported:
        return Supported() if ctx.requested_runtime == self.id else Unsupported("explicit")

    async def run_attempt(self, params: AttemptParams) -> AttemptResult:
        text = f"owner ran: {params.prompt}"
        message = {"role": "assistant", "content": [{"type": "text", "text": text}],
                   "stopReason": "stop"}
        return AttemptResult(AttemptTerminal.ok(), params.session_id, messages_snapshot=[message],
                             assistant_texts=[text], last_assistant=message)


def _register_owner(api: Any) -> None:
    api.register_agent_harness(OwnerHarness())


owner_entry = define_plugin_entry(id="owner-fakes", name="Owner fakes",
                                  description="test plugin", register=_register_owner)


class RecapHarness:
    """Chosen explicitly (`runtime="recap"`): remembers the history each attempt got, and
    compacts its (imaginary) native session when asked."""

    id = "recap"
    label = "Recap test harness"
    histories: ClassVar[list[list[Any]]] = []
    compactions: ClassVar[list[Any]] = []

    def supports(self, ctx: SupportContext) -> Supported | Unsupported:
        return Supported() if ctx.requested_runtime == self.id else Unsupported("explicit")

    async def run_attempt(self, params: AttemptParams) -> AttemptResult:
        RecapHarness.histories.append(list(params.history))
        message = {"role": "assistant", "content": [{"type": "text", "text": "recapped"}],
                   "stopReason": "stop"}
        return AttemptResult(AttemptTerminal.ok(), params.session_id, messages_snapshot=[message],
                             assistant_texts=["recapped"], last_assistant=message)

    async def compact(self, params: Any) -> dict[str, Any]:
        RecapHarness.compactions.append(params)
        return {"ok": True, "compacted": True}


def _register_recap(api: Any) -> None:
    api.register_agent_harness(RecapHarness())
    api.register_agent_harness(OwnerHarness())


recap_entry = define_plugin_entry(id="recap-fakes", name="Recap fakes",
                                  description="test plugin", register=_register_recap)
