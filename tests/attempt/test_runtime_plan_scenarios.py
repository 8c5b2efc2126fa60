"""The runtime plan a harness receives: silent replies (scenario 26), observability
(scenario 27), and that the plan is read-only."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from clawharness.attempt.runtime_plan import AgentRuntimePlan, build_agent_runtime_plan
from clawharness.delivery.silent import is_silent_payload


@pytest.fixture
def plan() -> AgentRuntimePlan:
    return build_agent_runtime_plan(provider="openai", model_id="gpt-x", config={})


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
    assert with_harness.observability.resolved_ref == "openai/gpt-x"
    assert with_harness.observability.harness_id == "codex"
    assert with_harness.observability.to_js() == {
        "resolvedRef": "openai/gpt-x",
        "provider": "openai",
        "modelId": "gpt-x",
        "harnessId": "codex",
    }
    assert without.observability.to_js() == {
        "resolvedRef": "openai/gpt-x",
        "provider": "openai",
        "modelId": "gpt-x",
    }


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
    assert "authProfileId" not in other.observability.to_js()


def test_the_plan_is_read_only(plan: AgentRuntimePlan) -> None:
    with pytest.raises(dataclasses.FrozenInstanceError):
        plan.resolved_ref = None  # type: ignore[misc, assignment]
    with pytest.raises(dataclasses.FrozenInstanceError):
        plan.observability.provider = "anthropic"  # type: ignore[misc]
    with pytest.raises(TypeError):
        plan.transport.extra_params["temperature"] = 0  # type: ignore[index]


def test_outcome_plan_classifies_an_empty_run_for_fallback(plan: AgentRuntimePlan) -> None:
    empty = {"payloads": [], "meta": {"durationMs": 1}}
    assert plan.outcome.classify_run_result(
        {"provider": "openai", "model": "gpt-x", "result": empty}
    ) == {
        "message": "openai/gpt-x ended without a visible assistant reply",
        "reason": "format",
        "code": "empty_result",
    }
    delivered = {"payloads": [{"text": "hello"}], "meta": {"durationMs": 1}}
    assert (
        plan.outcome.classify_run_result(
            {"provider": "openai", "model": "gpt-x", "result": delivered}
        )
        is None
    )


def test_provider_error_payloads_advance_fallback_with_their_reason(plan: AgentRuntimePlan) -> None:
    result = {"payloads": [{"text": "429 Too Many Requests", "isError": True}], "meta": {}}
    classified = plan.outcome.classify_run_result(
        {"provider": "openai", "model": "gpt-x", "result": result}
    )
    assert classified["reason"] == "rate_limit"
    assert classified["code"] == "embedded_error_payload"


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
    google = anthropic.transcript.resolve_policy({"modelApi": "google-generative-ai"})
    assert google.validate_gemini_turns is True


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
