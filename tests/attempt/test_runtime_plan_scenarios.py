"""The runtime plan a harness receives: silent replies (scenario 26), observability
(scenario 27), and that the plan is read-only."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from clawharness.delivery.silent import is_silent_payload
from clawharness.runtime_plan.plan import (
    AgentRuntimeAuthPlan,
    AgentRuntimeObservability,
    AgentRuntimePlan,
    build_agent_runtime_plan,
)
from clawharness.runtime_plan.run_result import (
    EmbeddedRunClassificationParams,
    EmbeddedRunResult,
    ModelFallbackClassification,
    RunMeta,
    RunPayload,
)


@pytest.fixture
def plan() -> AgentRuntimePlan:
    return build_agent_runtime_plan(provider="openai", model_id="gpt-x")


@pytest.mark.parametrize(
    ("payload", "silent"),
    [
        ({"text": " NO_REPLY "}, True),
        ({"text": "NO_REPLY", "mediaUrl": "https://m.test/a.png"}, False),
        ({"text": "done. NO_REPLY"}, False),
        ({"text": '{"action":"NO_REPLY"}'}, True),
        ({"text": '{"action":"NO_REPLY","x":1}'}, False),
    ],
)
def test_scenario_26_silent_payload_needs_silent_text_and_nothing_sendable(
    plan: AgentRuntimePlan, payload: dict[str, Any], silent: bool
) -> None:
    assert plan.delivery.is_silent_payload(payload) is silent
    # The same decision is importable without a plan.
    assert is_silent_payload(payload) is silent


def test_silent_text_with_a_valid_presentation_is_still_delivered(plan: AgentRuntimePlan) -> None:
    buttons = {"blocks": [{"type": "buttons", "buttons": [{"label": "Open", "value": "open"}]}]}
    assert plan.delivery.is_silent_payload({"text": "NO_REPLY", "presentation": buttons}) is False
    # A button without any action or value does not normalise, so nothing is sendable.
    inert = {"blocks": [{"type": "buttons", "buttons": [{"label": "Open"}]}]}
    assert plan.delivery.is_silent_payload({"text": "NO_REPLY", "presentation": inert}) is True


def test_scenario_27_resolved_ref_is_provider_slash_model_with_and_without_harness() -> None:
    # The digest's older builds prefixed the harness id ("codex:openai/gpt-x"); the recorded
    # openclaw@2026.9.6 keeps it out of the string and reports it as its own field.
    with_harness = build_agent_runtime_plan(provider="openai", model_id="gpt-x", harness_id="codex")
    without = build_agent_runtime_plan(provider="openai", model_id="gpt-x")
    assert with_harness.observability == AgentRuntimeObservability(
        resolved_ref="openai/gpt-x", provider="openai", model_id="gpt-x", harness_id="codex"
    )
    assert without.observability == AgentRuntimeObservability(
        resolved_ref="openai/gpt-x", provider="openai", model_id="gpt-x"
    )


def test_forwarded_auth_profile_appears_in_observability_when_providers_match() -> None:
    plan = build_agent_runtime_plan(
        provider="openai", model_id="gpt-x", session_auth_profile_id="openai:work"
    )
    assert plan.auth.forwards_profile is True
    assert plan.observability.auth_profile_id == "openai:work"
    other = build_agent_runtime_plan(
        provider="openai",
        model_id="gpt-x",
        auth_profile_provider="anthropic",
        session_auth_profile_id="anthropic:work",
    )
    assert other.auth.forwards_profile is False
    assert other.observability.auth_profile_id is None


def test_the_codex_harness_forwards_an_openai_api_key_profile() -> None:
    plan = build_agent_runtime_plan(
        provider="openai", model_id="gpt-x", harness_id="codex-app-server",
        auth_profile_mode="api_key", session_auth_profile_id="openai:key",
    )
    assert plan.auth.harness_auth_provider == "openai"
    assert plan.auth.forwards_profile is True
    refused = build_agent_runtime_plan(
        provider="openai", model_id="gpt-x", harness_id="codex",
        allow_harness_auth_profile_forwarding=False, session_auth_profile_id="openai:key",
    )
    assert refused.auth.forwards_profile is False


def test_a_prepared_auth_plan_is_used_as_given() -> None:
    prepared = AgentRuntimeAuthPlan(provider_for_auth="anthropic",
                                    auth_profile_provider_for_auth="anthropic",
                                    forwards_profile=True, forwarded_auth_profile_id="a:1")
    plan = build_agent_runtime_plan(provider="openai", model_id="gpt-x",
                                    prepared_auth_plan=prepared)
    assert plan.auth is prepared
    assert plan.observability.auth_profile_id == "a:1"


def test_configured_model_params_and_overrides_reach_the_transport() -> None:
    plan = build_agent_runtime_plan(
        provider="openai", model_id="gpt-x", model_params={"temperature": 0.2, "top_p": 1},
        extra_params_override={"top_p": 0.5}, thinking_level="high",
    )
    assert dict(plan.transport.base) == {"temperature": 0.2, "top_p": 1}
    assert dict(plan.transport.extra_params) == {"temperature": 0.2, "top_p": 0.5,
                                                 "thinking": "high"}
    assert plan.transport.resolve_extra_params(thinking_level="low")["thinking"] == "low"


def test_the_plan_is_read_only(plan: AgentRuntimePlan) -> None:
    with pytest.raises(dataclasses.FrozenInstanceError):
        plan.resolved_ref = None  # type: ignore[misc, assignment]
    with pytest.raises(dataclasses.FrozenInstanceError):
        plan.observability.provider = "anthropic"  # type: ignore[misc]
    with pytest.raises(TypeError):
        plan.transport.extra_params["temperature"] = 0  # type: ignore[index]


def _run(*payloads: RunPayload) -> EmbeddedRunClassificationParams:
    return EmbeddedRunClassificationParams(
        provider="openai", model="gpt-x", result=EmbeddedRunResult(RunMeta(), payloads))


def test_outcome_plan_classifies_an_empty_run_for_fallback(plan: AgentRuntimePlan) -> None:
    assert plan.outcome.classify_run_result(_run()) == ModelFallbackClassification(
        "openai/gpt-x ended without a visible assistant reply", "format", "empty_result"
    )
    assert plan.outcome.classify_run_result(_run(RunPayload(text="hello"))) is None


def test_provider_error_payloads_advance_fallback_with_their_reason(plan: AgentRuntimePlan) -> None:
    classified = plan.outcome.classify_run_result(
        _run(RunPayload(text="429 Too Many Requests", is_error=True)))
    assert classified is not None
    assert classified.reason == "rate_limit"
    assert classified.code == "embedded_error_payload"
    assert classified.raw_error == "429 Too Many Requests"


def test_transcript_policy_depends_on_the_model_api() -> None:
    openai = build_agent_runtime_plan(
        provider="openai", model_id="gpt-x", model_api="openai-responses"
    )
    assert openai.transcript.policy.sanitize_mode == "images-only"
    assert openai.transcript.policy.sanitize_tool_call_ids is False
    anthropic = build_agent_runtime_plan(
        provider="anthropic", model_id="claude", model_api="anthropic-messages"
    )
    assert anthropic.transcript.policy.sanitize_mode == "full"
    assert anthropic.transcript.policy.validate_anthropic_turns is True
    google = anthropic.transcript.resolve_policy(model_api="google-generative-ai")
    assert google.validate_gemini_turns is True
    assert anthropic.transcript.resolve_policy() is anthropic.transcript.policy


def test_tool_schemas_are_cleaned_only_for_google_apis() -> None:
    tool: dict[str, Any] = {
        "name": "lookup",
        "parameters": {
            "type": "object",
            "additionalProperties": False,
            "properties": {"default": {"type": "string", "default": "x"}},
        },
    }
    openai = build_agent_runtime_plan(
        provider="openai", model_id="gpt-x", model_api="openai-responses"
    )
    assert openai.tools.normalize([tool]) == [tool]
    gemini = build_agent_runtime_plan(
        provider="google", model_id="gemini", model_api="google-generative-ai"
    )
    [cleaned] = gemini.tools.normalize([tool])
    assert cleaned["parameters"] == {
        "type": "object",
        "properties": {"default": {"type": "string"}},
    }
    assert tool["parameters"]["additionalProperties"] is False  # the input is not mutated
    # A model switch inside the plan cleans for the overriding API.
    [switched] = openai.tools.normalize([tool], model_api="google-vertex")
    assert "additionalProperties" not in switched["parameters"]
