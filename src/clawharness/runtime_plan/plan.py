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
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING

from clawharness._json import JsonObject, JsonValue
from clawharness.delivery.silent import is_silent_payload
from clawharness.runtime_plan.transcript_policy import (
    TranscriptPolicy,
    normalize_provider_id,
    resolve_transcript_policy,
)

if TYPE_CHECKING:
    from clawharness.runtime_plan.run_result import (
        EmbeddedRunClassificationParams,
        ModelFallbackClassification,
    )

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
_SCHEMA_KEYS = ("parameters", "inputSchema", "input_schema")
# Provider ids that share another provider's credentials (bundled plugin manifests).
_PROVIDER_AUTH_ALIASES = {"openai-codex": "openai"}


def normalize_embedded_agent_runtime(value: str | None) -> str | None:
    """Normalise a runtime id: `pi`/empty -> `openclaw`, `codex-app-server` -> `codex`."""
    if value is None:
        return None
    normalized = value.strip().lower()
    if normalized in ("", "pi", "openclaw"):
        return "openclaw"
    if normalized == "codex-app-server":
        return "codex"
    return normalized


@dataclass(frozen=True, slots=True)
class ResolvedRef:
    """The provider/model (and harness, transport) this attempt resolved to."""

    provider: str
    model_id: str
    model_api: str | None = None
    harness_id: str | None = None
    transport: str | None = None


def _provider_for_auth(provider: str | None) -> str:
    normalized = normalize_provider_id(provider)
    return _PROVIDER_AUTH_ALIASES.get(normalized, normalized)


@dataclass(frozen=True, slots=True)
class AgentRuntimeAuthPlan:
    """Which provider's credentials the attempt uses and whether a profile is forwarded."""

    provider_for_auth: str
    auth_profile_provider_for_auth: str
    harness_auth_provider: str | None = None
    forwards_profile: bool = False
    forwarded_auth_profile_id: str | None = None
    forwarded_auth_profile_candidate_ids: tuple[str, ...] = ()


def _build_auth_plan(
    *,
    provider: str,
    auth_profile_provider: str | None,
    harness_id: str | None,
    harness_runtime: str | None,
    allow_harness_auth_profile_forwarding: bool,
    auth_profile_mode: str | None,
    session_auth_profile_id: str | None,
    session_auth_profile_candidate_ids: tuple[str, ...],
) -> AgentRuntimeAuthPlan:
    provider_for_auth = _provider_for_auth(provider)
    profile_provider_for_auth = _provider_for_auth(
        provider if auth_profile_provider is None else auth_profile_provider
    )
    codex = "codex" in (
        normalize_embedded_agent_runtime(harness_id),
        normalize_embedded_agent_runtime(harness_runtime),
    )
    harness_provider = _provider_for_auth(_CODEX_HARNESS_AUTH_PROVIDER) if codex else None
    harness_can_forward = (
        allow_harness_auth_profile_forwarding
        and bool(harness_provider)
        and (
            harness_provider == profile_provider_for_auth
            or (
                harness_provider == _CODEX_HARNESS_AUTH_PROVIDER
                and profile_provider_for_auth == "openai"
                and auth_profile_mode == "api_key"
            )
        )
    )
    # A harness with its own auth provider decides forwarding; otherwise providers must match.
    forwards = (not harness_provider and provider_for_auth == profile_provider_for_auth) or (
        harness_can_forward
    )
    return AgentRuntimeAuthPlan(
        provider_for_auth=provider_for_auth,
        auth_profile_provider_for_auth=profile_provider_for_auth,
        harness_auth_provider=harness_provider,
        forwards_profile=forwards,
        forwarded_auth_profile_id=session_auth_profile_id,
        forwarded_auth_profile_candidate_ids=session_auth_profile_candidate_ids,
    )


@dataclass(frozen=True, slots=True)
class AgentRuntimePromptPlan:
    """Provider-owned system-prompt contributions (none without provider plugins)."""

    provider: str
    model_id: str
    text_transforms: tuple[Callable[[str], str], ...] = ()

    def resolve_system_prompt_contribution(self) -> str | None:
        """Extra system-prompt text the provider contributes; None when none."""
        return None

    def transform_system_prompt(self, system_prompt: str) -> str:
        """The system prompt after provider transforms (unchanged without any)."""
        for transform in self.text_transforms:
            system_prompt = transform(system_prompt)
        return system_prompt


def _clean_google_schema(schema: JsonValue) -> JsonValue:
    if isinstance(schema, list):
        return [_clean_google_schema(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    cleaned: JsonObject = {}
    for key, value in schema.items():
        if key in _GOOGLE_UNSUPPORTED_SCHEMA_KEYS:
            continue
        if key == "properties" and isinstance(value, dict):
            # Property names are data, not keywords: a property called "default" stays.
            cleaned[key] = {name: _clean_google_schema(sub) for name, sub in value.items()}
        else:
            cleaned[key] = _clean_google_schema(value)
    return cleaned


def _schema_key(tool: Mapping[str, JsonValue]) -> str | None:
    return next((key for key in _SCHEMA_KEYS if key in tool), None)


@dataclass(frozen=True, slots=True)
class AgentRuntimeToolsPlan:
    """Provider-aware tool schema normalisation and diagnostics."""

    provider: str
    model_id: str
    model_api: str | None
    workspace_dir: str | None = None

    def normalize(
        self, tools: Sequence[JsonValue], *, model_api: str | None = None
    ) -> list[JsonValue]:
        """Tool definitions with schemas the provider accepts (unchanged for most).

        `model_api` overrides the attempt's own API (a model switch inside the plan).
        """
        if (model_api or self.model_api) not in _GOOGLE_APIS:
            return list(tools)
        normalized: list[JsonValue] = []
        for tool in tools:
            key = _schema_key(tool) if isinstance(tool, dict) else None
            if key is None or not isinstance(tool, dict):
                normalized.append(tool)
                continue
            cleaned = dict(tool)
            cleaned[key] = _clean_google_schema(copy.deepcopy(tool[key]))
            normalized.append(cleaned)
        return normalized

    def log_diagnostics(self, tools: Sequence[JsonValue], *, model_api: str | None = None) -> None:
        """Log tools whose schema the provider would reject as given."""
        api = model_api or self.model_api
        for tool in tools:
            if not isinstance(tool, dict):
                continue
            key = _schema_key(tool)
            name = tool.get("name")
            schema = tool.get(key) if key is not None else None
            if key is not None and not isinstance(schema, dict):
                _log.warning("tool %s has a non-object %s schema", name, key)
            elif api in _GOOGLE_APIS and isinstance(schema, dict):
                dropped = sorted(_GOOGLE_UNSUPPORTED_SCHEMA_KEYS & set(schema))
                if dropped:
                    _log.debug("tool %s: %s drops schema keys %s", name, api, dropped)


@dataclass(frozen=True, slots=True)
class AgentRuntimeTranscriptPlan:
    """The transcript repair policy for this attempt, and how to resolve it for overrides."""

    provider: str
    model_id: str
    model_api: str | None
    policy: TranscriptPolicy

    def resolve_policy(self, *, model_api: str | None = None) -> TranscriptPolicy:
        """The policy for an overridden model API (the attempt's own otherwise)."""
        if model_api is None:
            return self.policy
        return resolve_transcript_policy(
            provider=self.provider, model_id=self.model_id, model_api=model_api
        )


@dataclass(frozen=True, slots=True)
class AgentRuntimeDeliveryPlan:
    """Delivery decisions shared with the host: silent-reply suppression and follow-ups."""

    provider: str
    model_id: str

    def is_silent_payload(self, payload: Mapping[str, JsonValue]) -> bool:
        """True when the payload is a silent reply with nothing else to send."""
        return is_silent_payload(payload)

    def resolve_followup_route(self) -> str | None:
        """A provider-specific follow-up route; None lets the host decide."""
        return None


@dataclass(frozen=True, slots=True)
class AgentRuntimeOutcomePlan:
    """Model-fallback classification of a finished run."""

    def classify_run_result(
        self, params: EmbeddedRunClassificationParams
    ) -> ModelFallbackClassification | None:
        """Classify a run result for model fallback (None: no fallback)."""
        # the classification rules load with the first finished run, not with the plan (a
        # host that only reports, `clawharness status`, imports the contract without them)
        from clawharness.runtime_plan.classify import (
            classify_embedded_agent_run_result_for_model_fallback,
        )

        return classify_embedded_agent_run_result_for_model_fallback(params)


@dataclass(frozen=True, slots=True)
class AgentRuntimeTransportPlan:
    """Request parameters for the model transport: configured model params plus overrides."""

    base: Mapping[str, JsonValue]
    extra_params: Mapping[str, JsonValue]

    def resolve_extra_params(
        self,
        *,
        extra_params_override: Mapping[str, JsonValue] | None = None,
        thinking_level: str | None = None,
    ) -> dict[str, JsonValue]:
        """The extra params with per-call overrides applied."""
        merged = dict(self.extra_params)
        if extra_params_override is not None:
            merged.update(extra_params_override)
        if thinking_level is not None:
            merged["thinking"] = thinking_level
        return merged


@dataclass(frozen=True, slots=True)
class AgentRuntimeObservability:
    """Resolved provider/model/harness facts for logs and diagnostics."""

    resolved_ref: str
    provider: str
    model_id: str
    model_api: str | None = None
    harness_id: str | None = None
    auth_profile_id: str | None = None
    transport: str | None = None


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
    provider_runtime_handle: object = field(default=None)


def build_agent_runtime_plan(
    *,
    provider: str,
    model_id: str,
    model_api: str | None = None,
    harness_id: str | None = None,
    harness_runtime: str | None = None,
    resolved_transport: str | None = None,
    workspace_dir: str | None = None,
    model_params: Mapping[str, JsonValue] | None = None,
    extra_params_override: Mapping[str, JsonValue] | None = None,
    thinking_level: str | None = None,
    prepared_auth_plan: AgentRuntimeAuthPlan | None = None,
    auth_profile_provider: str | None = None,
    allow_harness_auth_profile_forwarding: bool = True,
    auth_profile_mode: str | None = None,
    session_auth_profile_id: str | None = None,
    session_auth_profile_candidate_ids: Sequence[str] = (),
    provider_runtime_handle: object = None,
) -> AgentRuntimePlan:
    """Build the runtime plan from the attempt's resolved facts.

    `model_params` are the configured params of this provider/model (agent defaults
    merged with the agent's own); `prepared_auth_plan`, when the host prepared one, is
    used as is instead of deriving the auth plan.
    """
    auth = prepared_auth_plan or _build_auth_plan(
        provider=provider,
        auth_profile_provider=auth_profile_provider,
        harness_id=harness_id,
        harness_runtime=harness_runtime,
        allow_harness_auth_profile_forwarding=allow_harness_auth_profile_forwarding,
        auth_profile_mode=auth_profile_mode,
        session_auth_profile_id=session_auth_profile_id,
        session_auth_profile_candidate_ids=tuple(session_auth_profile_candidate_ids),
    )
    base_params = MappingProxyType(dict(model_params or {}))
    seed = AgentRuntimeTransportPlan(base=base_params, extra_params=base_params)
    resolved_params = seed.resolve_extra_params(
        extra_params_override=extra_params_override, thinking_level=thinking_level
    )
    transport_plan = AgentRuntimeTransportPlan(
        base=base_params, extra_params=MappingProxyType(resolved_params)
    )
    return AgentRuntimePlan(
        resolved_ref=ResolvedRef(provider, model_id, model_api, harness_id, resolved_transport),
        auth=auth,
        prompt=AgentRuntimePromptPlan(provider, model_id),
        tools=AgentRuntimeToolsPlan(provider, model_id, model_api, workspace_dir),
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
            resolved_ref=f"{provider}/{model_id}",
            provider=provider,
            model_id=model_id,
            model_api=model_api,
            harness_id=harness_id,
            auth_profile_id=auth.forwarded_auth_profile_id if auth.forwards_profile else None,
            transport=resolved_transport,
        ),
        provider_runtime_handle=provider_runtime_handle,
    )
