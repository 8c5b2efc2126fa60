"""The runtime plan: host-owned decisions a harness must share with the built-in runtime.

The host builds one `AgentRuntimePlan` per attempt and hands it to the harness as
`params.runtime_plan`. It is read-only (frozen dataclasses): a harness uses it for
decisions that must match the host's behaviour (tool schema normalisation, transcript
repairs, silent-reply suppression, model-fallback classification) and must never use
it to switch provider or model inside a turn.
"""

from __future__ import annotations

import copy
import logging
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from clawharness._jsvalue import UNDEFINED
from clawharness.attempt._js import get, is_nullish, is_record, js_string, js_truthy
from clawharness.attempt.classify import classify_embedded_agent_run_result_for_model_fallback
from clawharness.attempt.transcript_policy import (
    TranscriptPolicy,
    normalize_provider_id,
    resolve_transcript_policy,
)
from clawharness.delivery.silent import is_silent_payload

__all__ = [
    "AgentRuntimeAuthPlan",
    "AgentRuntimeDeliveryPlan",
    "AgentRuntimeObservability",
    "AgentRuntimeOutcomePlan",
    "AgentRuntimePlan",
    "AgentRuntimePromptPlan",
    "AgentRuntimeToolsPlan",
    "AgentRuntimeTranscriptPlan",
    "AgentRuntimeTransportPlan",
    "ResolvedRef",
    "build_agent_runtime_plan",
    "normalize_embedded_agent_runtime",
]

_log = logging.getLogger("clawharness.attempt.runtime_plan")
_CODEX_HARNESS_AUTH_PROVIDER = "openai-codex"
_GOOGLE_APIS = frozenset(
    {"google-generative-ai", "google-gemini-cli", "google-vertex", "google-antigravity"}
)
# JSON-schema keywords Google's function declarations reject.
_GOOGLE_UNSUPPORTED_SCHEMA_KEYS = frozenset(
    {
        "$schema",
        "$id",
        "$ref",
        "$defs",
        "definitions",
        "additionalProperties",
        "patternProperties",
        "examples",
        "default",
        "const",
        "if",
        "then",
        "else",
        "not",
        "unevaluatedProperties",
    }
)
_CAMEL = re.compile(r"_([a-z])")


def normalize_embedded_agent_runtime(value: Any) -> Any:
    """Normalise a runtime id: `pi`/empty -> `openclaw`, `codex-app-server` -> `codex`."""
    if not isinstance(value, str):
        return UNDEFINED
    normalized = value.strip().lower()
    if normalized in ("", "pi", "openclaw"):
        return "openclaw"
    if normalized == "codex-app-server":
        return "codex"
    return normalized


def _present(entries: Sequence[tuple[str, Any]]) -> dict[str, Any]:
    # Mirrors `...(value ? { key: value } : {})`: only truthy optional fields appear.
    return {key: value for key, value in entries if js_truthy(value)}


@dataclass(frozen=True, slots=True)
class ResolvedRef:
    """The provider/model (and harness, transport) this attempt resolved to."""

    provider: Any
    model_id: Any
    model_api: Any = None
    harness_id: Any = None
    transport: Any = None

    def to_js(self) -> dict[str, Any]:
        """The wire shape: `{provider, modelId, modelApi?, harnessId?, transport?}`."""
        return {
            "provider": self.provider,
            "modelId": self.model_id,
            **_present(
                [
                    ("modelApi", self.model_api),
                    ("harnessId", self.harness_id),
                    ("transport", self.transport),
                ]
            ),
        }


# Provider ids that share another provider's credentials (bundled plugin manifests).
_PROVIDER_AUTH_ALIASES = {"openai-codex": "openai"}


def _provider_for_auth(provider: Any) -> str:
    normalized = normalize_provider_id(provider)
    return _PROVIDER_AUTH_ALIASES.get(normalized, normalized)


@dataclass(frozen=True, slots=True)
class AgentRuntimeAuthPlan:
    """Which provider's credentials the attempt uses and whether a profile is forwarded."""

    provider_for_auth: str
    auth_profile_provider_for_auth: str
    harness_auth_provider: str | None = None
    forwards_profile: bool = False
    forwarded_auth_profile_id: Any = UNDEFINED
    forwarded_auth_profile_candidate_ids: tuple[Any, ...] = ()

    def to_js(self) -> dict[str, Any]:
        """The wire shape of the auth plan."""
        out: dict[str, Any] = {
            "providerForAuth": self.provider_for_auth,
            "authProfileProviderForAuth": self.auth_profile_provider_for_auth,
        }
        if self.harness_auth_provider:
            out["harnessAuthProvider"] = self.harness_auth_provider
        if self.forwards_profile:
            out["forwardedAuthProfileId"] = self.forwarded_auth_profile_id
            if self.forwarded_auth_profile_candidate_ids:
                out["forwardedAuthProfileCandidateIds"] = list(
                    self.forwarded_auth_profile_candidate_ids
                )
        return out


def _build_auth_plan(params: Mapping[str, Any]) -> AgentRuntimeAuthPlan:
    prepared = get(params, "preparedAuthPlan")
    if is_record(prepared):
        candidates = prepared.get("forwardedAuthProfileCandidateIds")
        return AgentRuntimeAuthPlan(
            provider_for_auth=js_string(prepared.get("providerForAuth")),
            auth_profile_provider_for_auth=js_string(prepared.get("authProfileProviderForAuth")),
            harness_auth_provider=prepared.get("harnessAuthProvider") or None,
            forwards_profile="forwardedAuthProfileId" in prepared,
            forwarded_auth_profile_id=prepared.get("forwardedAuthProfileId", UNDEFINED),
            forwarded_auth_profile_candidate_ids=tuple(candidates)
            if isinstance(candidates, list)
            else (),
        )
    provider_for_auth = _provider_for_auth(get(params, "provider"))
    profile_provider = get(params, "authProfileProvider")
    profile_provider_for_auth = _provider_for_auth(
        get(params, "provider") if is_nullish(profile_provider) else profile_provider
    )
    codex = "codex" in (
        normalize_embedded_agent_runtime(get(params, "harnessId")),
        normalize_embedded_agent_runtime(get(params, "harnessRuntime")),
    )
    harness_provider = _provider_for_auth(_CODEX_HARNESS_AUTH_PROVIDER) if codex else None
    harness_can_forward = (
        get(params, "allowHarnessAuthProfileForwarding") is not False
        and bool(harness_provider)
        and (
            harness_provider == profile_provider_for_auth
            or (
                harness_provider == _CODEX_HARNESS_AUTH_PROVIDER
                and profile_provider_for_auth == "openai"
                and get(params, "authProfileMode") == "api_key"
            )
        )
    )
    # A harness with its own auth provider decides forwarding; otherwise providers must match.
    forwards = (not harness_provider and provider_for_auth == profile_provider_for_auth) or (
        harness_can_forward
    )
    candidates = get(params, "sessionAuthProfileCandidateIds")
    return AgentRuntimeAuthPlan(
        provider_for_auth=provider_for_auth,
        auth_profile_provider_for_auth=profile_provider_for_auth,
        harness_auth_provider=harness_provider,
        forwards_profile=forwards,
        forwarded_auth_profile_id=get(params, "sessionAuthProfileId"),
        forwarded_auth_profile_candidate_ids=tuple(candidates)
        if isinstance(candidates, list)
        else (),
    )


@dataclass(frozen=True, slots=True)
class AgentRuntimePromptPlan:
    """Provider-owned system-prompt contributions (none without provider plugins)."""

    provider: Any
    model_id: Any
    text_transforms: tuple[Callable[[str], str], ...] = ()

    def resolve_system_prompt_contribution(self, context: Mapping[str, Any]) -> Any:
        """Extra system-prompt text the provider contributes; `undefined` when none."""
        del context
        return UNDEFINED

    def transform_system_prompt(self, context: Mapping[str, Any]) -> Any:
        """The system prompt after provider transforms (unchanged without any)."""
        prompt = get(context, "systemPrompt")
        for transform in self.text_transforms:
            prompt = transform(prompt)
        return prompt


def _clean_google_schema(schema: Any) -> Any:
    if isinstance(schema, list):
        return [_clean_google_schema(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    cleaned: dict[str, Any] = {}
    for key, value in schema.items():
        if key in _GOOGLE_UNSUPPORTED_SCHEMA_KEYS:
            continue
        if key == "properties" and isinstance(value, dict):
            # Property names are data, not keywords: a property called "default" stays.
            cleaned[key] = {name: _clean_google_schema(sub) for name, sub in value.items()}
        else:
            cleaned[key] = _clean_google_schema(value)
    return cleaned


def _schema_of(tool: Any) -> tuple[str | None, Any]:
    if isinstance(tool, Mapping):
        for key in ("parameters", "inputSchema", "input_schema"):
            if key in tool:
                return key, tool[key]
    return None, None


@dataclass(frozen=True, slots=True)
class AgentRuntimeToolsPlan:
    """Provider-aware tool schema normalisation and diagnostics."""

    provider: Any
    model_id: Any
    model_api: Any
    workspace_dir: Any = None

    def _api(self, overrides: Mapping[str, Any] | None) -> Any:
        api = get(overrides, "modelApi") if overrides else UNDEFINED
        if api is UNDEFINED and overrides and get(overrides, "model") is not UNDEFINED:
            api = get(get(overrides, "model"), "api")
        return self.model_api if api is UNDEFINED else api

    def normalize(
        self, tools: Sequence[Any], overrides: Mapping[str, Any] | None = None
    ) -> list[Any]:
        """Tools with schemas the provider accepts (unchanged for most providers)."""
        if self._api(overrides) not in _GOOGLE_APIS:
            return list(tools)
        normalized: list[Any] = []
        for tool in tools:
            key, schema = _schema_of(tool)
            if key is None:
                normalized.append(tool)
                continue
            cleaned = dict(tool)
            cleaned[key] = _clean_google_schema(copy.deepcopy(schema))
            normalized.append(cleaned)
        return normalized

    def log_diagnostics(
        self, tools: Sequence[Any], overrides: Mapping[str, Any] | None = None
    ) -> None:
        """Log tools whose schema the provider would reject as given."""
        api = self._api(overrides)
        for tool in tools:
            key, schema = _schema_of(tool)
            name = get(tool, "name")
            if key is not None and not isinstance(schema, Mapping):
                _log.warning("tool %s has a non-object %s schema", js_string(name), key)
            elif api in _GOOGLE_APIS and isinstance(schema, Mapping):
                dropped = sorted(_GOOGLE_UNSUPPORTED_SCHEMA_KEYS & set(schema))
                if dropped:
                    _log.debug("tool %s: %s drops schema keys %s", js_string(name), api, dropped)


@dataclass(frozen=True, slots=True)
class AgentRuntimeTranscriptPlan:
    """The transcript repair policy for this attempt, and how to resolve it for overrides."""

    provider: Any
    model_id: Any
    model_api: Any
    policy: TranscriptPolicy

    def resolve_policy(self, overrides: Mapping[str, Any] | None = None) -> TranscriptPolicy:
        """The policy for an overridden model API or model (the attempt's own otherwise)."""
        api = get(overrides, "modelApi") if overrides else UNDEFINED
        if is_nullish(api) and overrides and not is_nullish(get(overrides, "model")):
            api = get(get(overrides, "model"), "api")
        if is_nullish(api):
            return self.policy
        return resolve_transcript_policy(
            provider=self.provider, model_id=self.model_id, model_api=api
        )


@dataclass(frozen=True, slots=True)
class AgentRuntimeDeliveryPlan:
    """Delivery decisions shared with the host: silent-reply suppression and follow-ups."""

    provider: Any
    model_id: Any

    def is_silent_payload(self, payload: Mapping[str, Any]) -> bool:
        """True when the payload is a silent reply with nothing else to send."""
        return is_silent_payload(payload)

    def resolve_followup_route(self, params: Mapping[str, Any]) -> Any:
        """A provider-specific follow-up route; `undefined` lets the host decide."""
        del params
        return UNDEFINED


@dataclass(frozen=True, slots=True)
class AgentRuntimeOutcomePlan:
    """Model-fallback classification of a finished run."""

    def classify_run_result(self, params: Mapping[str, Any]) -> Any:
        """Classify a run result for model fallback (None: no fallback)."""
        return classify_embedded_agent_run_result_for_model_fallback(params)


def _model_params(config: Any, provider: Any, model_id: Any, agent_id: Any) -> dict[str, Any]:
    key = f"{js_string(provider)}/{js_string(model_id)}"
    merged: dict[str, Any] = {}
    agents = get(config, "agents")
    sources = [get(get(get(agents, "defaults"), "models"), key)]
    entries = get(agents, "list")
    if isinstance(entries, list) and isinstance(agent_id, str):
        for entry in entries:
            if get(entry, "id") == agent_id:
                sources.append(get(get(entry, "models"), key))
    for source in sources:
        params = get(source, "params")
        if is_record(params):
            merged.update(params)
    return merged


@dataclass(frozen=True, slots=True)
class AgentRuntimeTransportPlan:
    """Request parameters for the model transport: configured model params plus overrides."""

    base: Mapping[str, Any]
    extra_params: Mapping[str, Any]

    def resolve_extra_params(self, overrides: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """The extra params with per-call overrides applied."""
        merged = dict(self.extra_params)
        override = get(overrides, "extraParamsOverride") if overrides else UNDEFINED
        if is_record(override):
            merged.update(override)
        thinking = get(overrides, "thinkingLevel") if overrides else UNDEFINED
        if isinstance(thinking, str):
            merged["thinking"] = thinking
        return merged


@dataclass(frozen=True, slots=True)
class AgentRuntimeObservability:
    """Resolved provider/model/harness facts for logs and diagnostics."""

    resolved_ref: str
    provider: Any
    model_id: Any
    model_api: Any = None
    harness_id: Any = None
    auth_profile_id: Any = None
    transport: Any = None

    def to_js(self) -> dict[str, Any]:
        """The wire shape, with optional fields present only when set."""
        return {
            "resolvedRef": self.resolved_ref,
            "provider": self.provider,
            "modelId": self.model_id,
            **_present(
                [
                    ("modelApi", self.model_api),
                    ("harnessId", self.harness_id),
                    ("authProfileId", self.auth_profile_id),
                    ("transport", self.transport),
                ]
            ),
        }


@dataclass(frozen=True, slots=True)
class AgentRuntimePlan:
    """Everything the host decided for one attempt, read-only for the harness."""

    resolved_ref: ResolvedRef
    auth: AgentRuntimeAuthPlan
    prompt: AgentRuntimePromptPlan
    tools: AgentRuntimeToolsPlan
    transcript: AgentRuntimeTranscriptPlan
    delivery: AgentRuntimeDeliveryPlan
    outcome: AgentRuntimeOutcomePlan
    transport: AgentRuntimeTransportPlan
    observability: AgentRuntimeObservability
    provider_runtime_handle: Any = field(default=None)


def _camel(name: str) -> str:
    return _CAMEL.sub(lambda m: m.group(1).upper(), name)


def build_agent_runtime_plan(
    params: Mapping[str, Any] | None = None, /, **fields: Any
) -> AgentRuntimePlan:
    """Build the runtime plan from the attempt's resolved facts.

    Accepts the wire-shaped mapping (`provider`, `modelId`, `config`, `modelApi`, `model`,
    `harnessId`, `resolvedTransport`, `sessionAuthProfileId`, ...) and/or the same
    fields as snake_case keyword arguments.
    """
    merged: dict[str, Any] = dict(params or {})
    merged.update({_camel(key): value for key, value in fields.items()})
    provider = get(merged, "provider")
    model_id = get(merged, "modelId")
    model = get(merged, "model")
    model_api = get(merged, "modelApi")
    if is_nullish(model_api):
        model_api = get(model, "api")
    if is_nullish(model_api):
        model_api = UNDEFINED
    transport = get(merged, "resolvedTransport")
    harness_id = get(merged, "harnessId")
    config = get(merged, "config") if is_record(get(merged, "config")) else UNDEFINED
    auth = _build_auth_plan(merged)
    base_params = MappingProxyType(
        _model_params(config, provider, model_id, get(merged, "agentId"))
    )
    seed = AgentRuntimeTransportPlan(base=base_params, extra_params=base_params)
    resolved_params = seed.resolve_extra_params(
        {
            "extraParamsOverride": get(merged, "extraParamsOverride"),
            "thinkingLevel": get(merged, "thinkingLevel"),
        }
    )
    transport_plan = AgentRuntimeTransportPlan(
        base=base_params, extra_params=MappingProxyType(resolved_params)
    )
    return AgentRuntimePlan(
        resolved_ref=ResolvedRef(provider, model_id, model_api, harness_id, transport),
        auth=auth,
        prompt=AgentRuntimePromptPlan(provider, model_id),
        tools=AgentRuntimeToolsPlan(provider, model_id, model_api, get(merged, "workspaceDir")),
        transcript=AgentRuntimeTranscriptPlan(
            provider,
            model_id,
            model_api,
            resolve_transcript_policy(provider=provider, model_id=model_id, model_api=model_api),
        ),
        delivery=AgentRuntimeDeliveryPlan(provider, model_id),
        outcome=AgentRuntimeOutcomePlan(),
        transport=transport_plan,
        observability=AgentRuntimeObservability(
            resolved_ref=f"{js_string(provider)}/{js_string(model_id)}",
            provider=provider,
            model_id=model_id,
            model_api=model_api,
            harness_id=harness_id,
            auth_profile_id=auth.forwarded_auth_profile_id if auth.forwards_profile else None,
            transport=transport,
        ),
        provider_runtime_handle=get(merged, "providerRuntimeHandle"),
    )
