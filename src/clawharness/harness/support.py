"""Route facts and the `supports(ctx)` context builder.

Two secret-free, provider-owned facts describe a route (seed: "Request-transport
contract"): `runtime_policy.compatible_ids` (None = undeclared, never permission) and
`request_transport_overrides` ("present" when authored headers, auth transport, proxy,
TLS, private-network or local-service behaviour, or request params exist). Nothing here
exposes the values behind those facts.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal
from urllib.parse import urlsplit

from clawharness.config.schema import AgentModelEntry, ClawConfig, ProviderConfig, ProviderModel
from clawharness.harness.runtime_ids import normalize_runtime_id
from clawharness.harness.types import (
    AgentHarness,
    ModelProviderFacts,
    RuntimePolicyFact,
    SupportContext,
    Supported,
    SupportResult,
    Unsupported,
)

__all__ = [
    "OPENAI_CHATGPT_RESPONSES_API",
    "OPENAI_RESPONSES_API",
    "RUNTIME_CONTROL_PARAM_KEYS",
    "OpenAIRouteClass",
    "Overrides",
    "ProviderRoute",
    "authored_override_presence",
    "auto_selection_hint",
    "auto_selection_provider_ids",
    "build_support_context",
    "classify_openai_route",
    "coerce_support_result",
    "intersect_route_policies",
    "normalize_model_id_for_provider",
    "probe_support",
    "resolve_route_facts",
]

Overrides = Literal["none", "present"]
OpenAIRouteClass = Literal["codex-compatible", "openclaw", "rejected"]

OPENAI_RESPONSES_API = "openai-responses"
OPENAI_CHATGPT_RESPONSES_API = "openai-chatgpt-responses"

#: model params that are typed agent-runtime controls, not authored request params
RUNTIME_CONTROL_PARAM_KEYS = frozenset({"fastMode", "fast_mode", "cutoff", "thinking"})

_PLATFORM_HOST = "api.openai.com"
_PLATFORM_PATHS = frozenset({"", "/", "/v1", "/v1/"})
_CHATGPT_HOST = "chatgpt.com"
_CHATGPT_PATHS = frozenset(
    {"/backend-api", "/backend-api/", "/backend-api/codex", "/backend-api/codex/"}
)


@dataclass(frozen=True, slots=True)
class ProviderRoute:
    """One physical route a provider (or a provider plugin) declares. Secret-free."""

    api: str | None = None
    base_url: str | None = None
    #: None = the provider did not declare runtime compatibility for this route
    runtime_policy: RuntimePolicyFact | None = None
    request_transport_overrides: Overrides = "none"

    def facts(self) -> ModelProviderFacts:
        return ModelProviderFacts(
            api=self.api,
            base_url=self.base_url,
            request_transport_overrides=self.request_transport_overrides,
            runtime_policy=self.runtime_policy,
        )


def normalize_model_id_for_provider(provider: str | None, model_id: str | None) -> str | None:
    """Strip a `provider/` prefix only when it names this provider (ids may hold slashes)."""
    if model_id is None:
        return None
    text = model_id.strip()
    if not text:
        return None
    head, sep, tail = text.partition("/")
    if sep and head and provider and head.strip().lower() == provider.strip().lower():
        return tail.strip() or None
    return text


def classify_openai_route(
    api: str | None, base_url: str | None, overrides: Overrides
) -> OpenAIRouteClass:
    """OpenAI's provider-owned route contract.

    Codex-compatible only for the exact official HTTPS Platform Responses endpoint with
    `openai-responses`, or the exact official ChatGPT endpoint with
    `openai-chatgpt-responses`, and no authored request override. A plaintext `http://`
    spelling of an official endpoint is rejected outright; everything else stays on
    the built-in runtime.
    """
    effective_api = api or OPENAI_RESPONSES_API
    if base_url is None or not base_url.strip():
        official = effective_api == OPENAI_RESPONSES_API
        return "codex-compatible" if official and overrides == "none" else "openclaw"
    try:
        parts = urlsplit(base_url.strip())
        host = (parts.hostname or "").lower()
        port = parts.port
    except ValueError:
        return "openclaw"
    exact_shape = port is None and not parts.query and not parts.fragment and not (
        parts.username or parts.password
    )
    platform = host == _PLATFORM_HOST and parts.path in _PLATFORM_PATHS
    chatgpt = host == _CHATGPT_HOST and parts.path in _CHATGPT_PATHS
    if not exact_shape or not (platform or chatgpt):
        return "openclaw"
    scheme = parts.scheme.lower()
    if scheme == "http":
        return "rejected"
    if scheme != "https":
        return "openclaw"
    api_matches = (platform and effective_api == OPENAI_RESPONSES_API) or (
        chatgpt and effective_api == OPENAI_CHATGPT_RESPONSES_API
    )
    return "codex-compatible" if api_matches and overrides == "none" else "openclaw"


def _find_model_row(provider_config: ProviderConfig | None, provider: str,
                    model_id: str | None) -> ProviderModel | None:
    if provider_config is None or model_id is None:
        return None
    for row in provider_config.models:
        if normalize_model_id_for_provider(provider, row.id) == model_id:
            return row
    return None


def _has_authored_params(params: Mapping[str, Any] | None) -> bool:
    if not params:
        return False
    for key, value in params.items():
        is_control = key in RUNTIME_CONTROL_PARAM_KEYS and not isinstance(value, (dict, list))
        if not is_control:
            return True
    return False


def _agent_model_entries(config: ClawConfig, agent_id: str | None) -> list[dict[str, AgentModelEntry]]:
    maps: list[dict[str, AgentModelEntry]] = []
    if agent_id is not None:
        entry = config.agents.entries.get(agent_id)
        if entry is not None:
            maps.append(entry.models)
    maps.append(config.agents.defaults.models)
    return maps


def _has_model_extra_params(config: ClawConfig, provider: str, model_id: str | None,
                            agent_id: str | None) -> bool:
    if model_id is None:
        return False
    for models in _agent_model_entries(config, agent_id):
        for key, entry in models.items():
            head, sep, tail = key.strip().partition("/")
            matches = (sep and head.lower() == provider.lower() and tail == model_id) or (
                not sep and key.strip() == model_id
            )
            if matches and _has_authored_params(entry.params):
                return True
    return False


def authored_override_presence(
    config: ClawConfig | None, provider: str, model_id: str | None, *, agent_id: str | None = None
) -> Overrides:
    """"present" when config authors request behaviour the route must reproduce.

    Counts: provider or model-row headers, any `request` block (auth transport, proxy,
    TLS, private-network or local-service settings, request params), model-row params
    and agent model-entry params other than the typed runtime controls.
    """
    if config is None:
        return "none"
    normalized = normalize_model_id_for_provider(provider, model_id)
    provider_config = config.models.providers.get(provider)
    if provider_config is not None:
        if provider_config.headers or provider_config.request:
            return "present"
        extra = provider_config.model_extra or {}
        if _has_authored_params(extra.get("params")):
            return "present"
        row = _find_model_row(provider_config, provider, normalized)
        if row is not None and (row.headers or _has_authored_params(row.params)):
            return "present"
    if _has_model_extra_params(config, provider, normalized, agent_id):
        return "present"
    return "none"


def intersect_route_policies(
    policies: Sequence[RuntimePolicyFact | None],
) -> tuple[str, ...]:
    """Ids every route declares, de-duplicated in first-seen order.

    One undeclared route (None) makes the result empty: a route that declared nothing
    grants nothing, and a harness must support every retry route before dispatch.
    """
    if not policies or any(policy is None for policy in policies):
        return ()
    first = policies[0]
    assert first is not None
    seen: list[str] = []
    for runtime_id in first.compatible_ids:
        if runtime_id in seen:
            continue
        if all(p is not None and runtime_id in p.compatible_ids for p in policies[1:]):
            seen.append(runtime_id)
    return tuple(seen)


def _declared_routes(
    provider: str,
    provider_config: ProviderConfig | None,
    api: str | None,
    base_url: str | None,
    overrides: Overrides,
    provider_routes: Mapping[str, Sequence[ProviderRoute]] | None,
) -> tuple[bool, RuntimePolicyFact | None]:
    """(owned, policy) for the configured route; owned=False when no one declares it."""
    if provider_config is not None and provider_config.runtime_policy is not None:
        ids = tuple(normalize_runtime_id(i) for i in provider_config.runtime_policy.compatible_ids)
        return True, RuntimePolicyFact(ids)
    routes = (provider_routes or {}).get(provider)
    if routes:
        policies = [route.runtime_policy for route in routes]
        if any(policy is None for policy in policies):
            return True, None
        return True, RuntimePolicyFact(intersect_route_policies(policies))
    if provider == "openai":
        verdict = classify_openai_route(api, base_url, overrides)
        ids = ("openclaw", "codex") if verdict == "codex-compatible" else ("openclaw",)
        return True, RuntimePolicyFact(ids)
    return False, None


def resolve_route_facts(
    config: ClawConfig | None,
    provider: str,
    model_id: str | None,
    *,
    agent_id: str | None = None,
    provider_routes: Mapping[str, Sequence[ProviderRoute]] | None = None,
) -> ModelProviderFacts | None:
    """The configured route's facts, or None when nothing configures or declares it."""
    normalized = normalize_model_id_for_provider(provider, model_id)
    provider_config = config.models.providers.get(provider) if config is not None else None
    plugin_routes = (provider_routes or {}).get(provider) or ()
    overrides = authored_override_presence(config, provider, normalized, agent_id=agent_id)
    if provider_config is not None:
        api: str | None = provider_config.api or (plugin_routes[0].api if plugin_routes else None)
        api = api or OPENAI_RESPONSES_API
        base_url = provider_config.base_url
    elif plugin_routes:
        api, base_url = plugin_routes[0].api, plugin_routes[0].base_url
    else:
        api, base_url = (OPENAI_RESPONSES_API, None) if provider == "openai" else (None, None)
    if any(route.request_transport_overrides == "present" for route in plugin_routes):
        overrides = "present"
    owned, policy = _declared_routes(
        provider, provider_config, api, base_url, overrides, provider_routes
    )
    if provider_config is None and not owned and overrides == "none":
        return None
    return ModelProviderFacts(
        api=api, base_url=base_url, request_transport_overrides=overrides, runtime_policy=policy
    )


def _owner_status(
    owner_plugin_ids: Sequence[str] | None,
) -> tuple[Literal["unowned", "owned", "ambiguous"] | None, tuple[str, ...]]:
    if owner_plugin_ids is None:
        return None, ()
    ids = tuple(dict.fromkeys(owner_plugin_ids))
    if not ids:
        return "unowned", ()
    return ("owned" if len(ids) == 1 else "ambiguous"), ids


def build_support_context(
    *,
    provider: str,
    model_id: str | None,
    requested_runtime: str = "auto",
    config: ClawConfig | None = None,
    agent_id: str | None = None,
    model_provider: ModelProviderFacts | None = None,
    prepared_model_provider: bool = False,
    retry_routes: Sequence[ModelProviderFacts] = (),
    provider_routes: Mapping[str, Sequence[ProviderRoute]] | None = None,
    provider_owner_plugin_ids: Sequence[str] | None = None,
) -> SupportContext:
    """Build what `supports(ctx)` sees for one resolved route (or retry set).

    - overrides are "present" when prepared facts, the config or any retry route say so;
    - a prepared `runtime_policy` wins; with `prepared_model_provider` and no policy the
      route stays undeclared (nothing is inferred from other fields);
    - a retry set's compatibility is the intersection over its routes;
    - otherwise the policy comes from the configured or plugin-declared route.
    """
    configured = resolve_route_facts(
        config, provider, model_id, agent_id=agent_id, provider_routes=provider_routes
    )
    present = (
        (model_provider is not None and model_provider.request_transport_overrides == "present")
        or (configured is not None and configured.request_transport_overrides == "present")
        or any(route.request_transport_overrides == "present" for route in retry_routes)
    )
    overrides: Overrides = "present" if present else "none"
    policy: RuntimePolicyFact | None
    if model_provider is not None and model_provider.runtime_policy is not None:
        policy = model_provider.runtime_policy
    elif prepared_model_provider:
        policy = None
    elif retry_routes:
        policy = RuntimePolicyFact(intersect_route_policies([r.runtime_policy for r in retry_routes]))
    else:
        policy = configured.runtime_policy if configured is not None else None
    facts: ModelProviderFacts | None
    if model_provider is None and configured is None and not retry_routes:
        facts = None
    else:
        base = model_provider or (retry_routes[0] if retry_routes else None) or configured
        assert base is not None
        facts = ModelProviderFacts(
            api=base.api if base.api is not None else (configured.api if configured else None),
            base_url=base.base_url if base.base_url is not None else (
                configured.base_url if configured else None
            ),
            request_transport_overrides=overrides,
            runtime_policy=policy,
            prepared_auth=model_provider.prepared_auth if model_provider is not None else None,
        )
    status, owners = _owner_status(provider_owner_plugin_ids)
    return SupportContext(
        provider=provider,
        model_id=model_id,
        requested_runtime=requested_runtime,
        model_provider=facts,
        provider_owner_status=status,
        provider_owner_plugin_ids=owners,
    )


def coerce_support_result(value: object) -> SupportResult:
    """Accept `Supported`/`Unsupported`, or the original's dict shape from a plugin."""
    if isinstance(value, (Supported, Unsupported)):
        return value
    if isinstance(value, Mapping):
        if value.get("supported") is True:
            priority = value.get("priority")
            return Supported(priority=priority if isinstance(priority, int) else 0,
                             reason=_opt_str(value.get("reason")))
        fallback = value.get("fallbackRuntime", value.get("fallback_runtime"))
        return Unsupported(reason=_opt_str(value.get("reason")),
                           fallback_runtime="openclaw" if fallback == "openclaw" else None)
    supported = getattr(value, "supported", None)
    if supported is True:
        priority = getattr(value, "priority", 0)
        return Supported(priority=priority if isinstance(priority, int) else 0,
                         reason=_opt_str(getattr(value, "reason", None)))
    if supported is False:
        fallback = getattr(value, "fallback_runtime", None)
        return Unsupported(reason=_opt_str(getattr(value, "reason", None)),
                           fallback_runtime="openclaw" if fallback == "openclaw" else None)
    return Unsupported(reason=f"supports() returned {type(value).__name__}, not a support result")


def _opt_str(value: object) -> str | None:
    return value if isinstance(value, str) else None


def probe_support(harness: AgentHarness, ctx: SupportContext) -> SupportResult:
    """Ask one harness once. A raising `supports()` counts as unsupported (with why)."""
    # a broken plugin must not break selection for everyone: it just does not claim
    try:
        return coerce_support_result(harness.supports(ctx))
    except Exception as exc:
        return Unsupported(reason=f"supports() raised {type(exc).__name__}: {exc}")


def auto_selection_provider_ids(harness: AgentHarness) -> Sequence[str] | None:
    """The harness's `auto_selection` providerIds (None when it declares none)."""
    auto = getattr(harness, "auto_selection", None)
    if auto is None:
        return None
    ids = auto.get("providerIds", auto.get("provider_ids")) if isinstance(auto, Mapping) else (
        getattr(auto, "provider_ids", None)
    )
    if ids is None:
        return None
    return [str(i) for i in ids]


def auto_selection_hint(harness: AgentHarness, provider: str) -> Unsupported | None:
    """A negative answer without probing, from the harness's `auto_selection.providerIds`.

    Absent list: probe dynamically. Empty list: explicit-only. Otherwise the provider
    must be listed.
    """
    ids = auto_selection_provider_ids(harness)
    if ids is None:
        return None
    wanted = provider.strip().lower()
    if any(i.strip().lower() == wanted for i in ids):
        return None
    return Unsupported(
        reason="harness is explicit-only" if not ids else "provider is not auto-selectable"
    )
