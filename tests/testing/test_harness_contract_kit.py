"""The harness contract kit: a conforming harness passes, broken ones fail with reasons."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from typing import Any, ClassVar

import pytest

from clawharness.harness.types import (
    AttemptParams,
    AttemptResult,
    AttemptTerminal,
    ModelProviderFacts,
    ResolvedModel,
    RuntimePolicyFact,
    SupportContext,
    Supported,
    SupportResult,
    Unsupported,
)
from clawharness.testing.contract import (
    HarnessContractSuite,
    check_attempt_result,
    check_harness_contract,
)

DECLARED = SupportContext(provider="acme", model_id="m", model_provider=ModelProviderFacts(
    runtime_policy=RuntimePolicyFact(("acme",))))
UNDECLARED = SupportContext(provider="acme", model_id="m", model_provider=ModelProviderFacts())


class GoodHarness:
    id = "acme"
    label = "Acme"
    conversation_tool_policy_support = "exact"
    auto_selection: ClassVar[dict[str, list[str]]] = {"providerIds": ["acme"]}

    def supports(self, ctx: SupportContext) -> SupportResult:
        mp = ctx.model_provider
        if mp and mp.runtime_policy and "acme" in mp.runtime_policy.compatible_ids:
            return Supported(priority=10)
        return Unsupported(reason="route not declared for acme")

    async def run_attempt(self, params: AttemptParams) -> AttemptResult:
        return AttemptResult(terminal=AttemptTerminal.ok(), session_id_used=params.session_id,
                             tool_media_urls=["a.png"], host_owned_tool_media_urls=["a.png"])


class GreedyHarness(GoodHarness):
    """Claims every route: the classic prefix-only mistake."""

    conversation_tool_policy_support = None  # type: ignore[assignment]

    def supports(self, ctx: SupportContext) -> SupportResult:
        return Supported()


def params() -> AttemptParams:
    return AttemptParams(run_id="r", session_key="agent:main:main", session_id="s",
                         agent_id="main", prompt="hi", provider="acme", model_id="m",
                         model=ResolvedModel("acme", "m"), workspace_dir="/tmp",
                         host_capabilities=None,  # type: ignore[arg-type]
                         runtime_plan=None)


def test_a_conforming_harness_passes_every_clause() -> None:
    report = check_harness_contract(GoodHarness(), declared_route_ctx=DECLARED,  # type: ignore[arg-type]
                                    undeclared_route_ctx=UNDECLARED)
    assert report.ok, report.failures
    report.raise_for_failures()
    assert asyncio.run(check_attempt_result(GoodHarness(), params())).ok  # type: ignore[arg-type]


def test_claiming_an_undeclared_route_fails() -> None:
    report = check_harness_contract(GreedyHarness(), declared_route_ctx=DECLARED,  # type: ignore[arg-type]
                                    undeclared_route_ctx=UNDECLARED)
    names = {c.name for c in report.failures}
    assert "supports(undeclared route) refuses" in names
    assert "restricted turns fail closed" not in names  # non-exact: rejected, as it must be
    with pytest.raises(AssertionError, match="not permission"):
        report.raise_for_failures()


def test_bad_registration_fields_and_results_are_reported() -> None:
    class Bad(GoodHarness):
        id = "Bad Id"
        auth_bootstrap = "sometimes"

        async def run_attempt(self, params: AttemptParams) -> Any:
            return AttemptResult(terminal=AttemptTerminal("weird"),  # type: ignore[arg-type]
                                 session_id_used="", host_owned_tool_media_urls=["x"],
                                 client_tool_calls=[])

    report = check_harness_contract(Bad(), declared_route_ctx=DECLARED,  # type: ignore[arg-type]
                                    undeclared_route_ctx=UNDECLARED)
    failed = {c.name for c in report.failures}
    assert {"registration", "field auth_bootstrap"} <= failed
    result = asyncio.run(check_attempt_result(Bad(), params()))  # type: ignore[arg-type]
    assert {c.name for c in result.failures} == {
        "terminal", "session_id_used", "host_owned_tool_media_urls ⊆ tool_media_urls",
        "client_tool_calls"}


def test_capture_requests_must_return_an_artifact() -> None:
    report = asyncio.run(check_attempt_result(
        GoodHarness(), replace(params(), capture_runtime_artifact=True)))  # type: ignore[arg-type]
    assert [c.name for c in report.failures] == ["runtime_artifact captured"]


class TestGoodHarnessContract(HarnessContractSuite):
    """The suite as a harness author would use it."""

    def make_harness(self) -> Any:
        return GoodHarness()

    def declared_route_ctx(self) -> SupportContext:
        return DECLARED

    def undeclared_route_ctx(self) -> SupportContext:
        return UNDECLARED

    def attempt_params(self) -> AttemptParams | None:
        return params()


def test_the_suite_fails_for_a_greedy_harness() -> None:
    class Suite(TestGoodHarnessContract):
        def make_harness(self) -> Any:
            return GreedyHarness()

    suite = Suite()
    suite.test_registration_shape()
    suite.test_supports_the_declared_route()
    with pytest.raises(AssertionError):
        suite.test_refuses_an_undeclared_route()
