"""Provider routes: from a model ref and the config to the exact transport model.

Known providers work with no config (`openai`, `anthropic`: official endpoints, key
from the environment). A configured provider's row wins. Plugins may register more
providers (e.g. `acp`), passed in as `extra_providers`.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass

from clawharness.config.schema import ClawConfig, ProviderConfig, ProviderModel
from clawharness.errors import ConfigError, ModelRefError
from clawharness.harness.types import PreparedAuth, ResolvedModel
from clawharness.models.builtin_providers import BUILTIN_PROVIDERS
from clawharness.names.model_refs import ModelRef

__all__ = ["BUILTIN_PROVIDERS", "Route", "RouteCache", "expand_secret", "known_provider_ids",
           "resolve_route"]


_ENV_REF = re.compile(r"^\$\{([A-Za-z_][A-Za-z0-9_]*)\}$")


@dataclass(frozen=True, slots=True)
class Route:
    """One resolved route: the transport model, its provider config and prepared auth."""

    ref: ModelRef
    model: ResolvedModel
    provider_config: ProviderConfig | None
    model_row: ProviderModel | None
    auth: PreparedAuth


def known_provider_ids(config: ClawConfig, extra_providers: Mapping[str, object] | None = None) -> set[str]:
    return set(BUILTIN_PROVIDERS) | set(config.models.providers) | set(extra_providers or {})


def expand_secret(value: str | None, *, env: Mapping[str, str], where: str) -> str | None:
    """`${VAR}` -> the variable's value (missing is an error naming the key); else literal."""
    if value is None:
        return None
    match = _ENV_REF.match(value.strip())
    if not match:
        return value
    name = match.group(1)
    if name not in env:
        raise ConfigError(f"environment variable {name} is not set", key_path=where)
    return env[name]


def resolve_route(
    config: ClawConfig,
    ref: ModelRef,
    *,
    env: Mapping[str, str] | None = None,
    extra_providers: Mapping[str, object] | None = None,
) -> Route:
    """The route for `ref`; ModelRefError when its provider is unknown."""
    env = os.environ if env is None else env
    provider_id = ref.provider
    provider = config.models.providers.get(provider_id)
    builtin = BUILTIN_PROVIDERS.get(provider_id)
    if provider is None and builtin is None and provider_id not in (extra_providers or {}):
        if ref.legacy:
            provider_id = "openai"
            builtin = BUILTIN_PROVIDERS["openai"]
        else:
            raise ModelRefError(f"model ref {ref} names unknown provider {provider_id!r}")
    row = None
    if provider is not None:
        row = next((m for m in provider.models if m.id == ref.model), None)
    api = (provider.api if provider and provider.api else None) or (builtin[0] if builtin else None)
    base_url = provider.base_url if provider else None
    if base_url is None and builtin is not None:
        base_url = builtin[1]
    key_where = f"models.providers.{provider_id}.apiKey"
    api_key = expand_secret(provider.api_key if provider else None, env=env, where=key_where)
    source = "direct" if api_key else "none"
    if api_key is None and builtin is not None and env.get(builtin[2]):
        api_key = env[builtin[2]]
        source = "direct"
    headers = dict(provider.headers or {}) if provider else {}
    if row is not None and row.headers:
        headers.update(row.headers)
    model = ResolvedModel(
        provider=provider_id,
        model_id=ref.model,
        api=api,
        base_url=base_url,
        context_window=row.context_window if row else None,
        max_tokens=row.max_tokens if row else None,
        headers=headers,
        params=dict(row.params or {}) if row else {},
    )
    return Route(ref, model, provider, row, PreparedAuth(source=source, api_key=api_key))  # type: ignore[arg-type]


#: routes a `RouteCache` keeps before it starts afresh (a config names a few models; a
#: turn's override may name any)
_ROUTES_KEPT = 256


class RouteCache:
    """`resolve_route` remembered: the route of a model ref depends only on the config
    (kept per config object: a new config starts afresh), on whether a plugin registers
    its provider, and on the environment variables its key is read from (whose values
    are compared on every use, so a changed key is read again). A failure is never
    kept. Routes are frozen and shared: read them, never change their mappings."""

    def __init__(self) -> None:
        self._config: ClawConfig | None = None
        self._routes: dict[tuple[ModelRef, bool], tuple[Route, tuple[tuple[str, str | None], ...]]] = {}

    def resolve(self, config: ClawConfig, ref: ModelRef, *, env: Mapping[str, str] | None = None,
                extra_providers: Mapping[str, object] | None = None) -> Route:
        env = os.environ if env is None else env
        if config is not self._config:
            self._config = config
            self._routes.clear()
        key = (ref, ref.provider in (extra_providers or {}))
        kept = self._routes.get(key)
        if kept is not None and all(env.get(name) == value for name, value in kept[1]):
            return kept[0]
        route = resolve_route(config, ref, env=env, extra_providers=extra_providers)
        if len(self._routes) >= _ROUTES_KEPT:
            self._routes.clear()
        self._routes[key] = (route, tuple((name, env.get(name))
                                          for name in _key_variables(config, route)))
        return route


def _key_variables(config: ClawConfig, route: Route) -> tuple[str, ...]:
    """The environment variables `resolve_route` read for `route`'s key."""
    names: list[str] = []
    provider = route.provider_config
    if provider is not None and provider.api_key is not None:
        match = _ENV_REF.match(provider.api_key.strip())
        if match:
            names.append(match.group(1))
    builtin = BUILTIN_PROVIDERS.get(route.model.provider)
    if builtin is not None:
        names.append(builtin[2])
    return tuple(names)
