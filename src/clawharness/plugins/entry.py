"""Plugin entries (`define_plugin_entry`) and the API a plugin's `register(api)` receives.

A plugin is a module exposing one `PluginEntry`. At load time the host calls
`entry.register(api)` once; the plugin registers harnesses, providers, session bindings
and tool-result middleware through `api`. Registrations are recorded with the plugin's id
so ownership questions (who registered harness X, who owns provider Y) have one answer.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from clawharness._faces import lazy_face
from clawharness._json import JsonObject, JsonValue
from clawharness.errors import PluginError
from clawharness.harness.registry import HarnessRegistry
from clawharness.harness.runtime_ids import normalize_runtime_id
from clawharness.harness.support import ProviderRoute
from clawharness.harness.types import AgentHarness, RuntimePolicyFact

# the session bindings are imported by the plugin that asks for them (`session_bindings`),
# the tool-result middleware by one that registers some: a host whose plugins are
# registered from their facts (`plugins.deferred`) needs neither
if TYPE_CHECKING:
    from clawharness.sessions.bindings.session_bindings import SessionBindings
    from clawharness.store import Store
    from clawharness.tools.middleware import ToolResultMiddlewareRegistration

__all__ = [
    "PluginApi",
    "PluginContracts",
    "PluginEntry",
    "PluginRegistrations",
    "ProviderRegistration",
    "ToolResultMiddlewareRegistration",
    "define_plugin_entry",
]

T = TypeVar("T")

_PLUGIN_ID = re.compile(r"^[a-z0-9][a-z0-9._-]{0,63}$")
_TOOL_ID = re.compile(r"^[a-z0-9][a-z0-9_.-]*$")


@dataclass(frozen=True, slots=True)
class PluginContracts:
    """A plugin's static manifest contracts (`contracts.*`)."""

    #: runtime ids the plugin may attach tool-result middleware to
    agent_tool_result_middleware: tuple[str, ...] = ()

    @staticmethod
    def coerce(value: PluginContracts | Mapping[str, Any] | None) -> PluginContracts:
        """Accept the dataclass or the manifest's camelCase mapping."""
        if value is None:
            return PluginContracts()
        if isinstance(value, PluginContracts):
            return value
        runtimes = value.get("agentToolResultMiddleware",
                             value.get("agent_tool_result_middleware", ()))
        if isinstance(runtimes, str) or not isinstance(runtimes, Sequence):
            raise PluginError("contracts.agentToolResultMiddleware must be a list of runtime ids")
        return PluginContracts(tuple(normalize_runtime_id(str(r)) for r in runtimes))


PluginRegister = Callable[["PluginApi"], object]


@dataclass(frozen=True, slots=True)
class PluginEntry:
    """What a plugin module exports: identity, manifest facts and `register(api)`."""

    id: str
    name: str
    description: str
    register: PluginRegister
    #: the plugin API floor, e.g. ">=2026.8.1" (also declare it as module-level
    #: `PLUGIN_API` so the host can refuse before importing; see plugins.loader)
    plugin_api: str | None = None
    contracts: PluginContracts = field(default_factory=PluginContracts)
    #: bundled plugins may ship disabled until `plugins.entries.<id>.enabled: true`
    enabled_by_default: bool = True


def define_plugin_entry(
    id: str,
    name: str,
    description: str,
    register: PluginRegister,
    *,
    plugin_api: str | None = None,
    contracts: PluginContracts | Mapping[str, Any] | None = None,
    enabled_by_default: bool = True,
) -> PluginEntry:
    """Declare a plugin (`definePluginEntry`). Validates the id and `register`."""
    if not isinstance(id, str) or not _PLUGIN_ID.match(id):
        raise PluginError(
            f"plugin id {id!r} is invalid: use 1-64 lowercase letters, digits, '.', '_' or '-'"
        )
    if not callable(register):
        raise PluginError(f'plugin "{id}": register must be callable, got {type(register).__name__}')
    return PluginEntry(
        id=id,
        name=name or id,
        description=description or "",
        register=register,
        plugin_api=plugin_api,
        contracts=PluginContracts.coerce(contracts),
        enabled_by_default=enabled_by_default,
    )


@dataclass(frozen=True, slots=True)
class ProviderRegistration:
    """A provider a plugin makes resolvable (`acp/<name>`-style refs), with route facts."""

    id: str
    owner_plugin_id: str
    label: str | None = None
    routes: tuple[ProviderRoute, ...] = ()
    models: tuple[str, ...] = ()


@dataclass(slots=True)
class PluginRegistrations:
    """Everything plugins registered besides harnesses (which live in the registry)."""

    providers: dict[str, list[ProviderRegistration]] = field(default_factory=dict)
    middlewares: list[ToolResultMiddlewareRegistration] = field(default_factory=list)
    harness_owners: dict[str, str] = field(default_factory=dict)
    #: portable `agent_end` hooks, each called with `(event, ctx)` after a turn
    agent_end_hooks: list[Callable[..., Any]] = field(default_factory=list)
    #: session bindings the host resets, deletes and rewinds with their sessions, with
    #: the plugin that registered each
    session_bindings: list[tuple[str, SessionBindings[Any]]] = field(default_factory=list)
    #: bumped whenever `providers` changes (`providers_changed`): what is worked out from
    #: them (their routes, a selector's decisions) is kept until it moves
    generation: int = field(default=0, compare=False)
    _routes: tuple[int, dict[str, tuple[ProviderRoute, ...]]] | None = field(
        default=None, init=False, repr=False, compare=False)

    def providers_changed(self) -> None:
        """Say `providers` changed (a registration added or rolled back)."""
        self.generation += 1

    def provider_routes(self) -> dict[str, tuple[ProviderRoute, ...]]:
        """Provider id -> declared routes (for `build_support_context`); worked out once
        per `generation` (every turn asks), so the same mapping until then (read-only)."""
        known = self._routes
        if known is not None and known[0] == self.generation:
            return known[1]
        routes = {pid: tuple(r for reg in regs for r in reg.routes)
                  for pid, regs in self.providers.items()}
        self._routes = (self.generation, routes)
        return routes

    def provider_owner_plugin_ids(self, provider: str) -> tuple[str, ...]:
        """Plugins registering `provider` (one: owned, several: ambiguous, none: unowned)."""
        return tuple(dict.fromkeys(r.owner_plugin_id for r in self.providers.get(provider, ())))

    def middlewares_for(self, runtime: str, tool: str) -> list[ToolResultMiddlewareRegistration]:
        """Registrations that apply to `tool` on `runtime`, in registration order."""
        runtime = normalize_runtime_id(runtime)
        return [m for m in self.middlewares
                if runtime in m.runtimes and (m.matcher is None or tool in m.matcher)]


class PluginApi:
    """The object a plugin's `register(api)` receives. Bound to one plugin id."""

    __slots__ = ("_config", "_contracts", "_harness_ids", "_id", "_logger",
                 "_middleware_trusted", "_registrations", "_registry", "_state_dir", "_store")

    def __init__(
        self,
        *,
        plugin_id: str,
        registry: HarnessRegistry,
        registrations: PluginRegistrations | None = None,
        config: Mapping[str, Any] | None = None,
        state_dir: Path | None = None,
        contracts: PluginContracts | None = None,
        middleware_trusted: bool = False,
        logger: logging.Logger | None = None,
        store: Store | None = None,
    ) -> None:
        self._id = plugin_id
        self._store = store
        self._config: Mapping[str, JsonValue] = dict(config or {})
        self._logger = logger or logging.getLogger(f"clawharness.plugins.{plugin_id}")
        self._state_dir = state_dir or Path.home() / ".clawharness" / "plugins" / plugin_id
        self._registry = registry
        self._registrations = registrations if registrations is not None else PluginRegistrations()
        self._contracts = contracts or PluginContracts()
        self._middleware_trusted = middleware_trusted
        self._harness_ids: list[str] = []

    @property
    def id(self) -> str:
        """The plugin's id."""
        return self._id

    @property
    def store(self) -> Store | None:
        """The host's store, for plugin state (`plugin_state` rows); None outside a host.
        Session bindings (`session_bindings`) live there."""
        return self._store

    @property
    def config(self) -> Mapping[str, JsonValue]:
        """The plugin's own config block (`plugins.entries.<id>.config`)."""
        return self._config

    @property
    def logger(self) -> logging.Logger:
        """A logger named `clawharness.plugins.<id>`."""
        return self._logger

    @property
    def state_dir(self) -> Path:
        """A directory this plugin may use for its state (the plugin creates it on use)."""
        return self._state_dir

    @property
    def harness_ids(self) -> tuple[str, ...]:
        """The harnesses this plugin registered so far."""
        return tuple(self._harness_ids)

    @property
    def registrations(self) -> PluginRegistrations:
        return self._registrations

    def session_bindings(
        self, harness_id: str, *, native_session: bool = False,
        validate: Callable[[JsonObject], JsonObject] | None = None, version: int = 1,
    ) -> SessionBindings[JsonObject]:
        """The binding records of `harness_id`: one JSON object per host session, stored
        in the host's store, and reset, deleted and rewound by the host together with the
        session (no hook of your own needed; `on_removed` runs your cleanup after).

        `native_session=True`: records are `{"nativeSessionId": str | None, ...}` (what
        the CLI and ACP harnesses keep). `validate` checks each record (raise ValueError
        to refuse it); `version` is the record format's version.
        """
        from clawharness.sessions.bindings.session_bindings import (
            JsonRecordCodec,
            NativeSessionRecord,
            SessionBindings,
            native_session_bindings,
        )

        bindings: SessionBindings[JsonObject]
        if native_session:
            if validate is not None:
                raise PluginError(f'plugin "{self._id}": native_session bindings validate '
                                  "their records themselves; drop validate=")
            native: SessionBindings[NativeSessionRecord] = native_session_bindings(
                harness_id, store=self._store, state_dir=self._state_dir)
            bindings = native
        else:
            bindings = SessionBindings(
                harness_id, codec=JsonRecordCodec(version=version, validate=validate),
                empty={}, store=self._store, state_dir=self._state_dir)
        return self.register_session_bindings(bindings)

    def register_session_bindings(self, bindings: SessionBindings[T]) -> SessionBindings[T]:
        """Hand bindings made elsewhere to the host, which then resets, deletes and
        rewinds them with their sessions. One namespace belongs to one registration."""
        from clawharness.sessions.bindings.session_bindings import SessionBindings

        if not isinstance(bindings, SessionBindings):
            raise PluginError(f'plugin "{self._id}": register_session_bindings takes the '
                              f"SessionBindings of a harness, got {type(bindings).__name__}")
        for owner, existing in self._registrations.session_bindings:
            if existing.namespace == bindings.namespace:
                raise PluginError(
                    f'plugin "{self._id}": session bindings "{bindings.namespace}" are already '
                    f'registered by plugin "{owner}"; each harness id has one set')
        self._registrations.session_bindings.append((self._id, bindings))
        return bindings

    def register_agent_harness(self, harness: AgentHarness) -> None:
        """Register a harness owned by this plugin. A duplicate id is refused."""
        self._registry.register(harness, owner_plugin_id=self._id)
        self._registrations.harness_owners[harness.id] = self._id
        self._harness_ids.append(harness.id)

    def register_provider(
        self,
        provider_id: str,
        *,
        label: str | None = None,
        routes: Sequence[ProviderRoute] = (),
        api: str | None = None,
        base_url: str | None = None,
        compatible_runtime_ids: Sequence[str] | None = None,
        models: Sequence[str] = (),
    ) -> ProviderRegistration:
        """Make a provider id resolvable and declare its routes' facts.

        Either pass `routes`, or the one-route shorthand `api` / `base_url` /
        `compatible_runtime_ids` (None leaves the route's runtime policy undeclared).
        """
        pid = provider_id.strip().lower() if isinstance(provider_id, str) else ""
        if not pid or "/" in pid:
            raise PluginError(f'plugin "{self.id}": provider id {provider_id!r} is invalid')
        if not routes:
            policy = (RuntimePolicyFact(tuple(normalize_runtime_id(i) for i in compatible_runtime_ids))
                      if compatible_runtime_ids is not None else None)
            routes = (ProviderRoute(api=api, base_url=base_url, runtime_policy=policy),)
        registration = ProviderRegistration(pid, self.id, label, tuple(routes), tuple(models))
        self._registrations.providers.setdefault(pid, []).append(registration)
        self._registrations.providers_changed()
        return registration

    def on_agent_end(self, handler: Callable[..., Any]) -> None:
        """Run `handler(event, ctx)` after every finished turn. It never delays the reply,
        and its failure never changes the turn's result."""
        if not callable(handler):
            raise PluginError(f'plugin "{self.id}": an agent_end hook must be callable')
        self._registrations.agent_end_hooks.append(handler)

    def register_agent_tool_result_middleware(
        self,
        handler: Callable[..., Any],
        *,
        runtimes: Sequence[str],
        matcher: Sequence[str] | None = None,
    ) -> ToolResultMiddlewareRegistration:
        """Attach tool-result middleware for the given runtimes (and optional tool ids).

        Allowed only for bundled or explicitly enabled plugins whose manifest declares
        each runtime in `contracts.agentToolResultMiddleware`.
        """
        if not callable(handler):
            raise PluginError(f'plugin "{self.id}": tool-result middleware must be callable')
        if not self._middleware_trusted:
            raise PluginError(
                f'plugin "{self.id}" may not register tool-result middleware: only bundled '
                f"plugins and explicitly enabled installed plugins may (set "
                f"plugins.entries.{self.id}.enabled: true)"
            )
        if isinstance(runtimes, str) or not runtimes:
            raise PluginError(f'plugin "{self.id}": middleware runtimes must be a non-empty list')
        wanted = tuple(dict.fromkeys(normalize_runtime_id(r) for r in runtimes))
        undeclared = [r for r in wanted if r not in self._contracts.agent_tool_result_middleware]
        if undeclared:
            raise PluginError(
                f'plugin "{self.id}" registers tool-result middleware for runtime(s) '
                f"{', '.join(undeclared)} that its manifest contracts.agentToolResultMiddleware "
                "does not declare"
            )
        tools: tuple[str, ...] | None = None
        if matcher is not None:
            if isinstance(matcher, str) or not matcher:
                raise PluginError(
                    f'plugin "{self.id}": matcher must be a non-empty list of tool ids; omit it '
                    "to match every tool"
                )
            for name in matcher:
                if not isinstance(name, str) or not _TOOL_ID.match(name):
                    raise PluginError(
                        f'plugin "{self.id}": matcher entry {name!r} is not a canonical tool id'
                    )
            tools = tuple(dict.fromkeys(matcher))
        from clawharness.tools.middleware import ToolResultMiddlewareRegistration

        registration = ToolResultMiddlewareRegistration(handler, wanted, tools, self.id)
        self._registrations.middlewares.append(registration)
        return registration


# the middleware's registration record is named here too (`ToolResultMiddlewareRegistration`)
# and loaded from its module when first asked for
__getattr__, __dir__ = lazy_face(__name__, {
    "ToolResultMiddlewareRegistration": "clawharness.tools.middleware",
})
