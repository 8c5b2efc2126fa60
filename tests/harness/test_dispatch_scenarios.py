"""Digest scenarios 18, 19, 22, 23, 24: running the selected harness."""

from __future__ import annotations

from typing import Any

import pytest
from harness_fakes import FakeHarness, make_params

from clawharness.config.schema import ClawConfig
from clawharness.errors import HarnessError, ToolPolicyRejectedError
from clawharness.harness.dispatch import (
    maybe_compact_harness_session,
    require_builtin_tool_round_limit,
    run_selected_attempt,
)
from clawharness.harness.gates import (
    GROUP_DENY_ALL_PROMPT,
    ToolPolicyLayer,
    evaluate_tool_policy_gate,
)
from clawharness.harness.registry import HarnessRegistry
from clawharness.harness.selection import SelectionRequest, select_harness
from clawharness.harness.types import AttemptParams, AttemptResult, Supported

NO_ENV: dict[str, str] = {}


def forced(runtime: str) -> ClawConfig:
    return ClawConfig.model_validate(
        {"models": {"providers": {"acme": {"agentRuntime": {"id": runtime}}}}})


async def test_scenario_18_selected_plugin_failure_propagates_and_builtin_never_runs(
    caplog: pytest.LogCaptureFixture,
) -> None:
    builtin = FakeHarness("openclaw")
    plugin = FakeHarness("native", fail_with=RuntimeError("native runtime crashed"))
    registry = HarnessRegistry(builtin=builtin)  # type: ignore[arg-type]
    registry.register(plugin)  # type: ignore[arg-type]
    decision = select_harness(forced("native"), registry,
                              SelectionRequest(provider="acme", model_id="m"), env=NO_ENV)
    with caplog.at_level("WARNING", logger="clawharness.agents.harness"), \
            pytest.raises(RuntimeError, match="native runtime crashed"):
        await run_selected_attempt(decision, make_params(provider="acme", model_id="m"))
    assert builtin.attempts == []
    assert "native harness failed; not falling back" in caplog.text


async def test_scenario_19_auto_selected_plugin_failure_is_not_replayed() -> None:
    builtin = FakeHarness("openclaw")
    plugin = FakeHarness("native", support=Supported(priority=1),
                         fail_with=RuntimeError("boom"))
    registry = HarnessRegistry(builtin=builtin)  # type: ignore[arg-type]
    registry.register(plugin)  # type: ignore[arg-type]
    decision = select_harness(ClawConfig(), registry,
                              SelectionRequest(provider="acme", model_id="m"), env=NO_ENV)
    assert decision.selected_reason == "auto_plugin"
    with pytest.raises(RuntimeError, match="boom"):
        await run_selected_attempt(decision, make_params(provider="acme", model_id="m"))
    assert builtin.attempts == [] and len(plugin.attempts) == 1


class ExactHarness(FakeHarness):
    conversation_tool_policy_support = "exact"


async def test_scenario_22_group_deny_all_gives_plugin_empty_tools_and_one_sentence() -> None:
    plugin = ExactHarness("native")
    builtin = FakeHarness("openclaw")
    registry = HarnessRegistry(builtin=builtin)  # type: ignore[arg-type]
    registry.register(plugin)  # type: ignore[arg-type]
    layers = [ToolPolicyLayer("group", "group", deny=("*",))]
    decision = select_harness(forced("native"), registry,
                              SelectionRequest(provider="acme", model_id="m"), env=NO_ENV)
    gate = evaluate_tool_policy_gate(plugin, layers)  # type: ignore[arg-type]
    params = make_params(system_prompt=f"Be brief.\n\n{GROUP_DENY_ALL_PROMPT}",
                         tools_allow=None)
    await run_selected_attempt(decision, params, gate=gate)
    seen = plugin.attempts[0]
    assert seen.tools_allow == []
    assert seen.system_prompt is not None
    assert seen.system_prompt.count(GROUP_DENY_ALL_PROMPT) == 1
    assert seen.plugin_harness_tool_policy_restricted is True
    assert params.tools_allow is None  # the caller's params were not mutated

    fresh = make_params(system_prompt="Be brief.")
    await run_selected_attempt(decision, fresh, gate=gate)
    assert plugin.attempts[1].system_prompt == f"Be brief.\n\n{GROUP_DENY_ALL_PROMPT}"

    builtin_decision = select_harness(forced("openclaw"), registry,
                                      SelectionRequest(provider="acme", model_id="m"), env=NO_ENV)
    builtin_gate = evaluate_tool_policy_gate(None, layers, builtin=True)
    original = make_params(system_prompt="Be brief.")
    await run_selected_attempt(builtin_decision, original, gate=builtin_gate)
    passed = builtin.attempts[0]
    assert passed.tools_allow is None and passed.system_prompt == "Be brief."
    assert passed.plugin_harness_tool_policy_restricted is False


async def test_scenario_22b_non_exact_plugin_is_rejected_before_it_runs() -> None:
    plugin = FakeHarness("native")
    registry = HarnessRegistry()
    registry.register(plugin)  # type: ignore[arg-type]
    decision = select_harness(forced("native"), registry,
                              SelectionRequest(provider="acme", model_id="m"), env=NO_ENV)
    gate = evaluate_tool_policy_gate(plugin, [ToolPolicyLayer("group", "group", deny=("*",))])  # type: ignore[arg-type]
    with pytest.raises(ToolPolicyRejectedError, match="cannot enforce this conversation's tool"):
        await run_selected_attempt(decision, make_params(), gate=gate)
    assert plugin.attempts == []


class ClassifyingHarness(FakeHarness):
    def classify(self, result: AttemptResult, params: AttemptParams) -> str:
        return "empty"


async def test_scenario_23_classify_verdict_and_harness_id_are_stamped() -> None:
    plugin = ClassifyingHarness("native")
    registry = HarnessRegistry()
    registry.register(plugin)  # type: ignore[arg-type]
    decision = select_harness(forced("native"), registry,
                              SelectionRequest(provider="acme", model_id="m"), env=NO_ENV)
    result = await run_selected_attempt(decision, make_params())
    assert result.agent_harness_result_classification == "empty"
    assert result.agent_harness_id == "native"
    assert plugin.attempts[0].agent_harness_id == "native"


async def test_scenario_24_plugin_without_compact_reports_unsupported_compaction() -> None:
    plugin = FakeHarness("native")
    builtin = FakeHarness("openclaw")
    registry = HarnessRegistry(builtin=builtin)  # type: ignore[arg-type]
    registry.register(plugin)  # type: ignore[arg-type]
    decision = select_harness(forced("native"), registry,
                              SelectionRequest(provider="acme", model_id="m"), env=NO_ENV)
    outcome = await maybe_compact_harness_session(decision, {"sessionKey": "agent:main:main"})
    assert outcome == {
        "ok": False,
        "compacted": False,
        "reason": 'Agent harness "native" does not support compaction.',
        "failure": {"reason": "unsupported_harness_compaction"},
    }
    builtin_decision = select_harness(forced("openclaw"), registry,
                                      SelectionRequest(provider="acme", model_id="m"), env=NO_ENV)
    assert await maybe_compact_harness_session(builtin_decision, {}) is None


async def test_compaction_is_delegated_to_a_harness_that_has_it() -> None:
    calls: list[Any] = []

    class Compacting(FakeHarness):
        async def compact(self, params: Any) -> dict[str, Any]:
            calls.append(params)
            return {"ok": True, "compacted": True}

    registry = HarnessRegistry()
    registry.register(Compacting("native"))  # type: ignore[arg-type]
    decision = select_harness(forced("native"), registry,
                              SelectionRequest(provider="acme", model_id="m"), env=NO_ENV)
    assert await maybe_compact_harness_session(decision, {"x": 1}) == {"ok": True,
                                                                        "compacted": True}
    assert calls == [{"x": 1}]


def test_tool_round_limits_require_the_builtin_harness() -> None:
    registry = HarnessRegistry(builtin=FakeHarness("openclaw"))  # type: ignore[arg-type]
    registry.register(FakeHarness("native"))  # type: ignore[arg-type]
    plugin_decision = select_harness(forced("native"), registry,
                                     SelectionRequest(provider="acme", model_id="m"), env=NO_ENV)
    with pytest.raises(HarnessError, match="round limits require the built-in"):
        require_builtin_tool_round_limit(plugin_decision, lambda: None)
    require_builtin_tool_round_limit(plugin_decision, None)
