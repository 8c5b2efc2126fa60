"""`buildAgentRuntimePlan` at the conformance boundary.

Decodes the vectors' wire-shaped plan parameters (`provider`, `modelId`, `config`,
`modelApi`, `model`, `harnessId`, `resolvedTransport`, `sessionAuthProfileId`, ...) into
`build_agent_runtime_plan`'s typed arguments, and returns a view of the plan whose
members take and return JavaScript values, as the vectors' `get`/`call` steps use them.
"""

from __future__ import annotations

from typing import Any

from clawharness.conformance.adapters_delivery import is_silent_payload_js
from clawharness.conformance.js_run_result import (
    decode_classification_params,
    encode_classification,
)
from clawharness.conformance.jsrules import (
    get,
    is_nullish,
    is_record,
    js_string,
    js_truthy,
    string_or_none,
    to_json,
)
from clawharness.conformance.jsvalue import UNDEFINED
from clawharness.runtime_plan.plan import (
    AgentRuntimeAuthPlan,
    AgentRuntimePlan,
    build_agent_runtime_plan,
)
from clawharness.runtime_plan.transcript_policy import TranscriptPolicy

__all__ = ["build_runtime_plan_view", "encode_transcript_policy"]


def _model_params(config: Any, provider: str, model_id: str, agent_id: Any) -> dict[str, Any]:
    # `agents.defaults.models["provider/model"].params`, then the agent's own in `agents.list`
    key = f"{provider}/{model_id}"
    agents = get(config, "agents")
    sources = [get(get(get(agents, "defaults"), "models"), key)]
    entries = get(agents, "list")
    if isinstance(entries, list) and isinstance(agent_id, str):
        sources.extend(get(get(entry, "models"), key) for entry in entries
                       if get(entry, "id") == agent_id)
    merged: dict[str, Any] = {}
    for source in sources:
        params = get(source, "params")
        if is_record(params):
            merged.update(to_json(params))
    return merged


def _model_api(params: Any) -> str | None:
    api = get(params, "modelApi")
    if is_nullish(api):
        api = get(get(params, "model"), "api")
    return string_or_none(api)


def _prepared_auth_plan(prepared: Any) -> AgentRuntimeAuthPlan | None:
    if not is_record(prepared):
        return None
    candidates = prepared.get("forwardedAuthProfileCandidateIds")
    harness_provider = prepared.get("harnessAuthProvider")
    return AgentRuntimeAuthPlan(
        provider_for_auth=js_string(prepared.get("providerForAuth", UNDEFINED)),
        auth_profile_provider_for_auth=js_string(
            prepared.get("authProfileProviderForAuth", UNDEFINED)),
        harness_auth_provider=harness_provider if isinstance(harness_provider, str)
        and harness_provider else None,
        forwards_profile="forwardedAuthProfileId" in prepared,
        forwarded_auth_profile_id=string_or_none(prepared.get("forwardedAuthProfileId")),
        forwarded_auth_profile_candidate_ids=tuple(c for c in candidates if isinstance(c, str))
        if isinstance(candidates, list) else (),
    )


def encode_transcript_policy(policy: TranscriptPolicy) -> dict[str, Any]:
    """The policy in the original's shape (camelCase, optional fields `undefined`)."""
    signatures = policy.sanitize_thought_signatures
    return {
        "sanitizeMode": policy.sanitize_mode,
        "sanitizeToolCallIds": policy.sanitize_tool_call_ids,
        "toolCallIdMode": UNDEFINED if policy.tool_call_id_mode is None
        else policy.tool_call_id_mode,
        "preserveNativeAnthropicToolUseIds": policy.preserve_native_anthropic_tool_use_ids,
        "repairToolUseResultPairing": policy.repair_tool_use_result_pairing,
        "preserveSignatures": policy.preserve_signatures,
        "sanitizeThoughtSignatures": UNDEFINED if signatures is None else {
            "allowBase64Only": signatures.allow_base64_only,
            "includeCamelCase": signatures.include_camel_case,
        },
        "sanitizeThinkingSignatures": policy.sanitize_thinking_signatures,
        "dropThinkingBlocks": policy.drop_thinking_blocks,
        "applyGoogleTurnOrdering": policy.apply_google_turn_ordering,
        "validateGeminiTurns": policy.validate_gemini_turns,
        "validateAnthropicTurns": policy.validate_anthropic_turns,
        "allowSyntheticToolResults": policy.allow_synthetic_tool_results,
    }


def _override_api(overrides: Any) -> str | None:
    if not js_truthy(overrides):
        return None
    api = get(overrides, "modelApi")
    if is_nullish(api) and not is_nullish(get(overrides, "model")):
        api = get(get(overrides, "model"), "api")
    return string_or_none(api)


class _PromptView:
    def __init__(self, plan: AgentRuntimePlan) -> None:
        self._plan = plan

    def resolve_system_prompt_contribution(self, context: Any = UNDEFINED) -> Any:
        contribution = self._plan.prompt.resolve_system_prompt_contribution()
        return UNDEFINED if contribution is None else contribution

    def transform_system_prompt(self, context: Any = UNDEFINED) -> Any:
        prompt = get(context, "systemPrompt")
        return self._plan.prompt.transform_system_prompt(prompt) if isinstance(prompt, str) \
            else prompt


class _ToolsView:
    def __init__(self, plan: AgentRuntimePlan) -> None:
        self._plan = plan

    def normalize(self, tools: Any = UNDEFINED, overrides: Any = UNDEFINED) -> Any:
        return self._plan.tools.normalize(to_json(tools), model_api=_override_api(overrides))

    def log_diagnostics(self, tools: Any = UNDEFINED, overrides: Any = UNDEFINED) -> None:
        self._plan.tools.log_diagnostics(to_json(tools), model_api=_override_api(overrides))


class _TranscriptView:
    def __init__(self, plan: AgentRuntimePlan) -> None:
        self._plan = plan
        self.policy = encode_transcript_policy(plan.transcript.policy)

    def resolve_policy(self, overrides: Any = UNDEFINED) -> Any:
        policy = self._plan.transcript.resolve_policy(model_api=_override_api(overrides))
        return encode_transcript_policy(policy)


class _DeliveryView:
    def __init__(self, plan: AgentRuntimePlan) -> None:
        self._plan = plan

    def is_silent_payload(self, payload: Any = UNDEFINED) -> bool:
        # the vectors' payloads are JavaScript values: the delivery adapter reads them
        return is_silent_payload_js(payload)

    def resolve_followup_route(self, params: Any = UNDEFINED) -> Any:
        route = self._plan.delivery.resolve_followup_route()
        return UNDEFINED if route is None else route


class _OutcomeView:
    def __init__(self, plan: AgentRuntimePlan) -> None:
        self._plan = plan

    def classify_run_result(self, params: Any = UNDEFINED) -> Any:
        decoded = decode_classification_params(params)
        return encode_classification(self._plan.outcome.classify_run_result(decoded))


class _TransportView:
    def __init__(self, plan: AgentRuntimePlan) -> None:
        self._plan = plan
        self.base = dict(plan.transport.base)
        self.extra_params = dict(plan.transport.extra_params)

    def resolve_extra_params(self, overrides: Any = UNDEFINED) -> Any:
        override = get(overrides, "extraParamsOverride") if js_truthy(overrides) else UNDEFINED
        thinking = get(overrides, "thinkingLevel") if js_truthy(overrides) else UNDEFINED
        return self._plan.transport.resolve_extra_params(
            extra_params_override=to_json(override) if is_record(override) else None,
            thinking_level=thinking if isinstance(thinking, str) else None,
        )


class _PlanView:
    """The plan as the original's object: camelCase members, JavaScript values."""

    def __init__(self, plan: AgentRuntimePlan, raw: Any) -> None:
        self.plan = plan
        provider, model_id = get(raw, "provider"), get(raw, "modelId")
        ref = plan.resolved_ref
        # provider and model id pass through as given; the optional facts appear when set
        self.resolved_ref = {
            "provider": provider, "modelId": model_id,
            **{key: value for key, value in (("modelApi", ref.model_api),
                                             ("harnessId", ref.harness_id),
                                             ("transport", ref.transport)) if value},
        }
        seen = plan.observability
        self.observability = {
            "resolvedRef": seen.resolved_ref, "provider": provider, "modelId": model_id,
            **{key: value for key, value in (("modelApi", seen.model_api),
                                             ("harnessId", seen.harness_id),
                                             ("authProfileId", seen.auth_profile_id),
                                             ("transport", seen.transport)) if value},
        }
        self.auth = _encode_auth(plan.auth)
        self.prompt = _PromptView(plan)
        self.tools = _ToolsView(plan)
        self.transcript = _TranscriptView(plan)
        self.delivery = _DeliveryView(plan)
        self.outcome = _OutcomeView(plan)
        self.transport = _TransportView(plan)
        self.provider_runtime_handle = plan.provider_runtime_handle


def _encode_auth(auth: AgentRuntimeAuthPlan) -> dict[str, Any]:
    out: dict[str, Any] = {
        "providerForAuth": auth.provider_for_auth,
        "authProfileProviderForAuth": auth.auth_profile_provider_for_auth,
    }
    if auth.harness_auth_provider:
        out["harnessAuthProvider"] = auth.harness_auth_provider
    if auth.forwards_profile:
        out["forwardedAuthProfileId"] = (UNDEFINED if auth.forwarded_auth_profile_id is None
                                         else auth.forwarded_auth_profile_id)
        if auth.forwarded_auth_profile_candidate_ids:
            out["forwardedAuthProfileCandidateIds"] = list(
                auth.forwarded_auth_profile_candidate_ids)
    return out


def build_runtime_plan_view(params: Any = UNDEFINED) -> _PlanView:
    """`buildAgentRuntimePlan(params)`."""
    provider = js_string(get(params, "provider"))
    model_id = js_string(get(params, "modelId"))
    config = get(params, "config") if is_record(get(params, "config")) else UNDEFINED
    override = get(params, "extraParamsOverride")
    thinking = get(params, "thinkingLevel")
    candidates = get(params, "sessionAuthProfileCandidateIds")
    plan = build_agent_runtime_plan(
        provider=provider,
        model_id=model_id,
        model_api=_model_api(params),
        harness_id=string_or_none(get(params, "harnessId")),
        harness_runtime=string_or_none(get(params, "harnessRuntime")),
        resolved_transport=string_or_none(get(params, "resolvedTransport")),
        workspace_dir=string_or_none(get(params, "workspaceDir")),
        model_params=_model_params(config, provider, model_id, get(params, "agentId")),
        extra_params_override=to_json(override) if is_record(override) else None,
        thinking_level=thinking if isinstance(thinking, str) else None,
        prepared_auth_plan=_prepared_auth_plan(get(params, "preparedAuthPlan")),
        auth_profile_provider=string_or_none(get(params, "authProfileProvider")),
        allow_harness_auth_profile_forwarding=get(
            params, "allowHarnessAuthProfileForwarding") is not False,
        auth_profile_mode=string_or_none(get(params, "authProfileMode")),
        session_auth_profile_id=string_or_none(get(params, "sessionAuthProfileId")),
        session_auth_profile_candidate_ids=tuple(c for c in candidates if isinstance(c, str))
        if isinstance(candidates, list) else (),
        provider_runtime_handle=get(params, "providerRuntimeHandle"),
    )
    return _PlanView(plan, params)
