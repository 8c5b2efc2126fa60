"""The harness contract kit: a conforming harness passes, broken ones fail with reasons."""

from __future__ import annotations

import asyncio
import uuid
from pathlib import Path
from typing import Any, ClassVar

import pytest

from clawharness.harness.types import ModelProviderFacts
from clawharness.plugin_sdk._kit.contract import undeclared_routes
from clawharness.plugin_sdk.agent_harness import (
    AttemptParams,
    AttemptResult,
    AttemptTerminal,
    SupportContext,
    Supported,
    SupportResult,
    Unsupported,
    assistant_message,
    user_message,
)
from clawharness.plugin_sdk.agent_harness_session_runtime import (
    BoundSession,
    NativeSessionRecord,
    native_session_bindings,
)
from clawharness.plugin_sdk.agent_harness_tool_runtime import (
    ToolCallRequest,
    ToolCalls,
    text_result,
)
from clawharness.plugin_sdk.testing import (
    HarnessContractSuite,
    RecordingMirror,
    StaticToolPolicy,
    attempt_params,
    check_attempt_result,
    check_harness_contract,
    declared_route,
)

DECLARED = declared_route("acme", "acme", "m")


class GoodHarness:
    id = "acme"
    label = "Acme"
    conversation_tool_policy_support = "exact"
    auto_selection: ClassVar[dict[str, list[str]]] = {"providerIds": ["acme"]}

    def supports(self, ctx: SupportContext) -> SupportResult:
        mp = ctx.model_provider
        if mp and mp.request_transport_overrides == "present":
            return Unsupported(reason="acme cannot reproduce authored request overrides")
        if mp and mp.runtime_policy and "acme" in mp.runtime_policy.compatible_ids:
            return Supported(priority=10)
        return Unsupported(reason="route not declared for acme")

    async def run_attempt(self, params: AttemptParams) -> AttemptResult:
        result = AttemptResult.reply(params.session_id, f"acme: {params.prompt}",
                                     agent_harness_id=self.id)
        result.tool_media_urls = ["a.png"]
        result.host_owned_tool_media_urls = ["a.png"]
        return result


class ProviderOnlyHarness(GoodHarness):
    """Claims its provider whatever the route declares: the classic prefix-only mistake,
    which an author-chosen "undeclared" route of another provider would not catch."""

    conversation_tool_policy_support = None  # type: ignore[assignment]

    def supports(self, ctx: SupportContext) -> SupportResult:
        return Supported() if ctx.provider == "acme" else Unsupported(reason="not acme")


class RepliesWithoutTranscript(GoodHarness):
    """Returns only `assistant_texts`: the reply would never reach the transcript."""

    async def run_attempt(self, params: AttemptParams) -> AttemptResult:
        return AttemptResult(AttemptTerminal.ok(), params.session_id,
                             assistant_texts=["acme says hi"])


class MirrorsWithoutThePrompt(GoodHarness):
    """Mirrors its reply but not the turn's prompt, which the host then never stores."""

    async def run_attempt(self, params: AttemptParams) -> AttemptResult:
        reply = assistant_message("hi")
        assert params.mirror is not None
        await params.mirror([reply])
        return AttemptResult(AttemptTerminal.ok(), params.session_id, messages_snapshot=[reply],
                             assistant_texts=["hi"], transcript_mirrored=True)


class MirrorsProperly(GoodHarness):
    async def run_attempt(self, params: AttemptParams) -> AttemptResult:
        reply = assistant_message("hi")
        assert params.mirror is not None
        await params.mirror([user_message(params.prompt), reply])
        return AttemptResult(AttemptTerminal.ok(), params.session_id, messages_snapshot=[reply],
                             assistant_texts=["hi"], transcript_mirrored=True)


def run(harness: Any, params: AttemptParams) -> Any:
    return asyncio.run(check_attempt_result(harness, params))


def failed(report: Any) -> set[str]:
    return {c.name for c in report.failures}


def test_a_conforming_harness_passes_every_clause(tmp_path: Path) -> None:
    report = check_harness_contract(GoodHarness(), declared_route_ctx=DECLARED)
    assert report.ok, report.failures
    report.raise_for_failures()
    result = run(GoodHarness(), attempt_params(workspace_dir=str(tmp_path)))
    assert result.ok, result.failures
    assert "transcript holds the reply" in {c.name for c in result.checks}


def test_a_harness_that_ignores_the_route_policy_fails_on_routes_the_kit_derives() -> None:
    other_provider = SupportContext(provider="other", model_id="m",
                                    model_provider=ModelProviderFacts())
    report = check_harness_contract(ProviderOnlyHarness(), declared_route_ctx=DECLARED,
                                    undeclared_route_ctx=other_provider)
    [clause] = [c for c in report.failures if c.name == "supports(undeclared route) refuses"]
    assert "no route facts" in clause.detail and "no runtime policy" in clause.detail
    assert "openclaw" in clause.detail and "not permission" in clause.detail
    with pytest.raises(AssertionError, match="not permission"):
        report.raise_for_failures()


def test_the_derived_routes_keep_the_request_and_drop_only_the_declaration() -> None:
    declared = declared_route("acme", "acme", "m", requested_runtime="acme")
    routes = dict(undeclared_routes("acme", declared))
    assert set(routes) == {"no route facts", "no runtime policy",
                           "a policy naming only openclaw"}
    for ctx in routes.values():
        assert (ctx.provider, ctx.model_id, ctx.requested_runtime) == ("acme", "m", "acme")
        policy = ctx.model_provider.runtime_policy if ctx.model_provider else None
        assert policy is None or "acme" not in policy.compatible_ids


def test_a_reply_only_in_assistant_texts_is_refused_as_missing_from_the_transcript(
        tmp_path: Path) -> None:
    for mirror in (None, False):
        report = run(RepliesWithoutTranscript(),
                     attempt_params(workspace_dir=str(tmp_path), mirror=mirror))
        [clause] = [c for c in report.failures if c.name == "transcript holds the reply"]
        assert "acme says hi" in clause.detail and "assistant_message" in clause.detail


def test_a_mirroring_harness_must_store_the_prompt_first(tmp_path: Path) -> None:
    bad = run(MirrorsWithoutThePrompt(), attempt_params("ping", workspace_dir=str(tmp_path)))
    assert failed(bad) == {"transcript starts with the prompt"}
    recorder = RecordingMirror()
    good = run(MirrorsProperly(), attempt_params("ping", workspace_dir=str(tmp_path),
                                                 mirror=recorder))
    assert good.ok, good.failures
    assert [m["role"] for m in recorder.messages] == ["user", "assistant"]


def test_claiming_to_have_mirrored_without_a_mirror_fails(tmp_path: Path) -> None:
    class ClaimsToMirror(GoodHarness):
        async def run_attempt(self, params: AttemptParams) -> AttemptResult:
            return AttemptResult(AttemptTerminal.ok(), params.session_id,
                                 transcript_mirrored=True)

    report = run(ClaimsToMirror(), attempt_params(workspace_dir=str(tmp_path), mirror=False))
    [clause] = report.failures
    assert clause.name == "transcript" and "params.mirror was None" in clause.detail


def test_bad_registration_fields_and_results_are_reported(tmp_path: Path) -> None:
    class Bad(GoodHarness):
        id = "Bad Id"
        auth_bootstrap = "sometimes"

        async def run_attempt(self, params: AttemptParams) -> Any:
            return AttemptResult(terminal=AttemptTerminal("weird"),  # type: ignore[arg-type]
                                 session_id_used="", host_owned_tool_media_urls=["x"],
                                 client_tool_calls=[])

    report = check_harness_contract(Bad(), declared_route_ctx=DECLARED)
    assert {"registration", "field auth_bootstrap"} <= failed(report)
    result = run(Bad(), attempt_params(workspace_dir=str(tmp_path)))
    assert failed(result) == {"terminal", "session_id_used",
                              "host_owned_tool_media_urls ⊆ tool_media_urls",
                              "client_tool_calls"}


def test_capture_requests_must_return_an_artifact(tmp_path: Path) -> None:
    report = run(GoodHarness(), attempt_params(workspace_dir=str(tmp_path),
                                               capture_runtime_artifact=True))
    assert [c.name for c in report.failures] == ["runtime_artifact captured"]


def test_the_builder_needs_few_fields_and_lends_live_capabilities(tmp_path: Path) -> None:
    params = attempt_params("hi", provider="acme", model_id="m", harness_id="acme",
                            workspace_dir=str(tmp_path))
    assert (params.prompt, params.provider, params.model_id) == ("hi", "acme", "m")
    assert params.model.provider == "acme" and params.agent_harness_id == "acme"
    assert params.session_key == "agent:main:main" and params.run_id and params.session_id
    assert isinstance(params.mirror, RecordingMirror) and params.mirror_barrier is not None
    assert params.runtime_plan is not None
    assert params.host_capabilities.bind_tool_surface(()) == ()


class TestGoodHarnessContract(HarnessContractSuite):
    """The suite as a harness author would use it."""

    def make_harness(self) -> Any:
        return GoodHarness()

    def declared_route_ctx(self) -> SupportContext:
        return DECLARED

    def attempt_params(self) -> AttemptParams | None:
        return attempt_params("hello", workspace_dir=str(self.workdir))


def test_the_suite_fails_for_a_harness_that_ignores_the_route_policy() -> None:
    class Suite(TestGoodHarnessContract):
        def make_harness(self) -> Any:
            return ProviderOnlyHarness()

    suite = Suite()
    suite.test_registration_shape()
    suite.test_supports_the_declared_route()
    with pytest.raises(AssertionError, match="no runtime policy"):
        suite.test_refuses_an_undeclared_route()


def test_the_suite_fails_for_a_reply_missing_from_the_transcript() -> None:
    class Suite(TestGoodHarnessContract):
        def make_harness(self) -> Any:
            return RepliesWithoutTranscript()

    suite = Suite()
    suite.setup_method()
    try:
        with pytest.raises(AssertionError, match="transcript holds the reply"):
            suite.test_attempt_result()
        assert suite.workdir.is_dir()
    finally:
        suite.teardown_method()
    assert not suite.workdir.exists()


# --- what a third-party harness got wrong before the kit caught it -----------------------


class ExactButRunsItsToolUnasked(GoodHarness):
    """Declares exact tool policy, then lets its runtime run `exec` without asking."""

    async def run_attempt(self, params: AttemptParams) -> AttemptResult:
        calls = ToolCalls(params)
        # the runtime ran the tool on its own; the harness only reports it
        await calls.settle_native(ToolCallRequest("t1", "exec", {"command": "rm -rf build"}),
                                  result=text_result("removed"), is_error=False)
        result = AttemptResult.reply(params.session_id, "done", agent_harness_id=self.id)
        result.tool_metas = calls.metas
        return result


class ExactAndAsks(GoodHarness):
    """The same runtime, asking the host before the tool runs (and not running a denied one)."""

    async def run_attempt(self, params: AttemptParams) -> AttemptResult:
        calls = ToolCalls(params)
        call = ToolCallRequest("t1", "exec", {"command": "rm -rf build"})
        permission = await calls.ask(call, cwd=params.workspace_dir)
        await calls.settle_native(call, result=text_result(
            "removed" if permission.allowed else f"refused: {permission.reason}"),
            is_error=not permission.allowed)
        return AttemptResult.reply(params.session_id, "done", agent_harness_id=self.id)


class ClaimsAuthoredOverrides(GoodHarness):
    """Checks the route policy but not the request it would have to reproduce."""

    def supports(self, ctx: SupportContext) -> SupportResult:
        mp = ctx.model_provider
        if mp and mp.runtime_policy and "acme" in mp.runtime_policy.compatible_ids:
            return Supported(priority=10)
        return Unsupported(reason="route not declared for acme")


class NamesItsNativeSession(GoodHarness):
    """Returns the native session id where the host session id belongs."""

    async def run_attempt(self, params: AttemptParams) -> AttemptResult:
        return AttemptResult.reply("native-7f3a", "hi", agent_harness_id=self.id)


class NativeSessions(GoodHarness):
    """Binds a native session per host session; `resumes` says whether it uses it again."""

    resumes = True

    def __init__(self, state_dir: Path) -> None:
        self.bindings = native_session_bindings("acme", state_dir=state_dir)

    async def run_attempt(self, params: AttemptParams) -> AttemptResult:
        async def turn(bound: BoundSession[NativeSessionRecord]) -> AttemptResult:
            native = bound.record.get("nativeSessionId") if bound.record and self.resumes \
                else None
            if not isinstance(native, str):
                native = uuid.uuid4().hex[:8]  # a new native session
            await bound.write({"nativeSessionId": native})
            result = AttemptResult.reply(params.session_id, "hi", agent_harness_id=self.id)
            result.extra["nativeSessionId"] = native
            return result

        return await self.bindings.with_turn(params, turn)


class NeverResumes(NativeSessions):
    resumes = False


def test_an_exact_harness_that_runs_a_tool_without_asking_the_host_fails(tmp_path: Path) -> None:
    bad = run(ExactButRunsItsToolUnasked(), attempt_params(workspace_dir=str(tmp_path)))
    [clause] = bad.failures
    assert clause.name == "exact tool policy: every tool call asks the host"
    assert "exec (t1)" in clause.detail and "run_before_tool_call" in clause.detail
    for policy in (None, StaticToolPolicy(deny={"exec": "exec is denied here"})):
        good = run(ExactAndAsks(), attempt_params(workspace_dir=str(tmp_path), policy=policy))
        assert good.ok, good.failures
    # the same unasked run is no breach of a harness that does not claim exact policy
    lax = ExactButRunsItsToolUnasked()
    lax.conversation_tool_policy_support = None  # type: ignore[assignment]
    assert run(lax, attempt_params(workspace_dir=str(tmp_path))).ok


def test_a_harness_that_claims_authored_request_overrides_fails() -> None:
    report = check_harness_contract(ClaimsAuthoredOverrides(), declared_route_ctx=DECLARED)
    [clause] = report.failures
    assert clause.name == "supports(route with authored request overrides) refuses"
    assert "request_transport_overrides" in clause.detail
    overridden = declared_route("acme", "acme", "m", request_overrides=True)
    assert isinstance(GoodHarness().supports(overridden), Unsupported)


def test_a_harness_that_returns_another_session_id_fails(tmp_path: Path) -> None:
    params = attempt_params(workspace_dir=str(tmp_path))
    report = run(NamesItsNativeSession(), params)
    [clause] = report.failures
    assert clause.name == "session_id_used"
    assert "native-7f3a" in clause.detail and params.session_id in clause.detail


def test_a_harness_that_never_resumes_its_native_session_fails(tmp_path: Path) -> None:
    bad = run(NeverResumes(tmp_path / "bad"), attempt_params(workspace_dir=str(tmp_path)))
    [clause] = bad.failures
    assert clause.name == "the next turn resumes the native session"
    assert "resumes the native session its binding names" in clause.detail
    good = run(NativeSessions(tmp_path / "good"), attempt_params(workspace_dir=str(tmp_path)))
    assert good.ok, good.failures
    assert "the next turn resumes the native session" in {c.name for c in good.checks}
