"""Plugin discovery and loading, and the plugin API floor.

Sources, in order: `BUNDLED_PLUGINS` (module paths shipped with the host), installed
distributions' entry points in group `clawharness.plugins` (the entry-point name is the
plugin id), `plugins.entries.<id>.module`, and `plugins.load` module paths.

Gating: `plugins.deny` always wins; a non-null `plugins.allow` admits only listed ids;
`plugins.entries.<id>.enabled: false` disables. When the id is known before import
(entry points, `entries.<id>.module`) a disabled plugin is never imported.

API floor. A plugin declares the oldest plugin API it works with as a module-level
literal in the module its entry point names::

    PLUGIN_API = ">=2026.8.1"

The loader finds that module's source through importlib's path finders *without
executing it or its parent packages* and reads the literal with `ast`. A floor above
`HOST_PLUGIN_API_VERSION` is refused with `PluginApiFloorError` before any plugin code
runs. `define_plugin_entry(plugin_api=...)` is checked again after import, as a backstop
for modules whose source cannot be read (compiled-only installs).
"""

from __future__ import annotations

import ast
import importlib
import importlib.machinery
import importlib.metadata
import inspect
import logging
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Literal

from clawharness.config.schema import ClawConfig, PluginsConfig
from clawharness.errors import PluginApiFloorError, PluginError
from clawharness.harness.registry import HarnessRegistry
from clawharness.plugins.deferred import BUNDLED_FACTS, DeferredPlugin, PluginFacts
from clawharness.plugins.entry import PluginApi, PluginEntry, PluginRegistrations
from clawharness.store import Store

__all__ = [
    "BUNDLED_ENTRIES",
    "BUNDLED_PLUGINS",
    "ENTRY_POINT_GROUP",
    "HOST_PLUGIN_API_VERSION",
    "LoadedPlugin",
    "PluginLoadResult",
    "PluginProblem",
    "PluginSource",
    "api_floor_satisfied",
    "check_api_floor",
    "discover_plugin_sources",
    "load_plugins",
    "plugin_gate",
    "read_static_plugin_api",
]

#: the plugin API this host implements (calendar version of the original it tracks)
HOST_PLUGIN_API_VERSION = "2026.9.6"
ENTRY_POINT_GROUP = "clawharness.plugins"
#: bundled plugin modules ("package.module" or "package.module:attr")
BUNDLED_PLUGINS: tuple[str, ...] = (
    "clawharness.harnesses.codex.plugin:entry",
    "clawharness.harnesses.cli.plugin:entry",
    "clawharness.harnesses.acp.plugin:entry",
)

#: what a bundled plugin's entry says of itself, known without importing it: (its id,
#: on by default). One off by default (Codex) is then not imported at all unless the
#: config enables it; an entry that disagrees with this table fails to load. One that
#: `BUNDLED_FACTS` also describes is registered from those facts and imported at its
#: first use (`clawharness.plugins.deferred`).
BUNDLED_ENTRIES: Mapping[str, tuple[str, bool]] = {
    "clawharness.harnesses.codex.plugin:entry": ("codex", False),
    "clawharness.harnesses.cli.plugin:entry": ("claude-cli", True),
    "clawharness.harnesses.acp.plugin:entry": ("acp", True),
}

_log = logging.getLogger("clawharness.plugins")
_CLAUSE = re.compile(r"^\s*(>=|<=|==|!=|>|<)?\s*(\d+(?:\.\d+)*)\s*$")

Origin = Literal["bundled", "entry-point", "config"]


@dataclass(frozen=True, slots=True)
class PluginSource:
    """Where a plugin comes from, known before anything is imported."""

    target: str
    origin: Origin
    #: the plugin id when known before import (entry-point name, `entries.<id>`)
    declared_id: str | None = None
    distribution: str | None = None


@dataclass(frozen=True, slots=True)
class LoadedPlugin:
    """A plugin whose `register(api)` ran."""

    id: str
    name: str
    origin: Origin
    target: str
    plugin_api: str | None
    harness_ids: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class PluginProblem:
    """A plugin that was skipped (gated off) or failed/refused to load."""

    target: str
    plugin_id: str | None
    kind: Literal["skipped", "refused", "failed"]
    reason: str
    error: BaseException | None = None


@dataclass(slots=True)
class PluginLoadResult:
    """The registry and everything else the loaded plugins registered."""

    registry: HarnessRegistry
    registrations: PluginRegistrations
    loaded: list[LoadedPlugin] = field(default_factory=list)
    skipped: list[PluginProblem] = field(default_factory=list)
    failed: list[PluginProblem] = field(default_factory=list)


def _version(text: str) -> tuple[int, ...]:
    return tuple(int(part) for part in text.strip().split("."))


def _cmp(a: tuple[int, ...], b: tuple[int, ...]) -> int:
    width = max(len(a), len(b))
    pa, pb = a + (0,) * (width - len(a)), b + (0,) * (width - len(b))
    return (pa > pb) - (pa < pb)


def api_floor_satisfied(spec: str, host_version: str = HOST_PLUGIN_API_VERSION) -> bool:
    """Whether `host_version` meets `spec` (">=2026.8.1", "2026.8.1", ">=a,<b", ...)."""
    host = _version(host_version)
    clauses = [c for c in spec.split(",") if c.strip()]
    if not clauses:
        raise PluginApiFloorError(f"plugin API floor {spec!r} is empty")
    for clause in clauses:
        match = _CLAUSE.match(clause)
        if match is None:
            raise PluginApiFloorError(
                f"plugin API floor {spec!r} is not understood; write it like \">=2026.8.1\""
            )
        op, version = match.group(1) or ">=", _version(match.group(2))
        order = _cmp(host, version)
        ok = {">=": order >= 0, ">": order > 0, "<=": order <= 0, "<": order < 0,
              "==": order == 0, "!=": order != 0}[op]
        if not ok:
            return False
    return True


def check_api_floor(plugin: str, spec: str | None,
                    host_version: str = HOST_PLUGIN_API_VERSION) -> None:
    """Raise PluginApiFloorError when `spec` asks for a newer plugin API than the host's."""
    if spec is None:
        return
    if not api_floor_satisfied(spec, host_version):
        raise PluginApiFloorError(
            f'plugin "{plugin}" requires plugin API {spec.strip()}, but this host implements '
            f"{host_version}; upgrade clawharness or install an older release of the plugin"
        )


def _module_source(module: str) -> Path | None:
    # PathFinder walks package directories without importing them, unlike find_spec
    search: list[str] | None = None
    spec = None
    parts = module.split(".")
    for index in range(len(parts)):
        name = ".".join(parts[: index + 1])
        spec = importlib.machinery.PathFinder.find_spec(name, search)
        if spec is None:
            return None
        if index < len(parts) - 1:
            search = list(spec.submodule_search_locations or [])
            if not search:
                return None
    if spec is None or not spec.origin or not spec.origin.endswith(".py"):
        return None
    return Path(spec.origin)


def read_static_plugin_api(target: str) -> str | None:
    """The module-level `PLUGIN_API` string literal of `target`'s module, read with `ast`.

    Nothing is imported or executed. None when the source is unavailable or the module
    does not declare a literal floor.
    """
    module = target.partition(":")[0].strip()
    path = _module_source(module)
    if path is None:
        return None
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    except (OSError, SyntaxError, UnicodeDecodeError):
        return None
    for node in tree.body:
        targets: list[ast.expr] = []
        value: ast.expr | None = None
        if isinstance(node, ast.Assign):
            targets, value = list(node.targets), node.value
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            targets, value = [node.target], node.value
        for item in targets:
            named = isinstance(item, ast.Name) and item.id == "PLUGIN_API"
            if named and isinstance(value, ast.Constant) and isinstance(value.value, str):
                return value.value
    return None


def plugin_gate(plugins: PluginsConfig, plugin_id: str, *,
                enabled_by_default: bool = True) -> tuple[bool, bool, str | None]:
    """(enabled, explicitly_enabled, reason-if-disabled) for one plugin id."""
    if plugin_id in plugins.deny:
        return False, False, "denied by plugins.deny"
    if plugins.allow is not None and plugin_id not in plugins.allow:
        return False, False, "not listed in plugins.allow"
    entry = plugins.entries.get(plugin_id)
    explicit_flag = entry is not None and "enabled" in entry.model_fields_set
    if entry is not None and not entry.enabled:
        return False, False, f"disabled by plugins.entries.{plugin_id}.enabled"
    explicitly = (explicit_flag and entry is not None and entry.enabled) or (
        plugins.allow is not None and plugin_id in plugins.allow
    )
    if not enabled_by_default and not explicitly:
        return False, False, f"bundled but off by default; set plugins.entries.{plugin_id}.enabled: true"
    return True, explicitly, None


def discover_plugin_sources(config: ClawConfig,
                            *, bundled: Sequence[str] | None = None) -> list[PluginSource]:
    """Every plugin source, without importing any plugin code.

    `bundled` defaults to `BUNDLED_PLUGINS` as it is at call time.
    """
    bundled = BUNDLED_PLUGINS if bundled is None else bundled
    sources = [PluginSource(target, "bundled") for target in bundled]
    for ep in importlib.metadata.entry_points(group=ENTRY_POINT_GROUP):
        dist = getattr(ep, "dist", None)
        sources.append(PluginSource(ep.value, "entry-point", ep.name,
                                    getattr(dist, "name", None)))
    for plugin_id, entry in config.plugins.entries.items():
        if entry.module:
            sources.append(PluginSource(entry.module, "config", plugin_id))
    sources.extend(PluginSource(target, "config") for target in config.plugins.load)
    return sources


def _resolve_entry(module: ModuleType, attr: str | None, target: str) -> PluginEntry:
    if attr:
        value = getattr(module, attr, None)
        if not isinstance(value, PluginEntry):
            raise PluginError(f"{target}: {attr} is not a PluginEntry (use define_plugin_entry)")
        return value
    for name in ("PLUGIN", "plugin", "entry"):
        value = getattr(module, name, None)
        if isinstance(value, PluginEntry):
            return value
    found = [v for v in vars(module).values() if isinstance(v, PluginEntry)]
    if len(found) != 1:
        raise PluginError(
            f"{target}: expected one PluginEntry in the module (found {len(found)}); "
            "name it with module:attr"
        )
    return found[0]


def load_plugins(
    config: ClawConfig,
    *,
    registry: HarnessRegistry | None = None,
    state_dir: Path | None = None,
    host_api_version: str = HOST_PLUGIN_API_VERSION,
    bundled: Sequence[str] | None = None,
    strict: bool = False,
    store: Store | None = None,
) -> PluginLoadResult:
    """Discover, gate, floor-check, import and register every plugin.

    Problems are collected in the result (a broken plugin does not take the host down);
    `strict=True` raises the first one instead.
    """
    result = PluginLoadResult(registry=registry if registry is not None else HarnessRegistry(),
                              registrations=PluginRegistrations())
    base_state = state_dir or Path.home() / ".clawharness"
    seen: set[str] = set()
    for source in discover_plugin_sources(config, bundled=bundled):
        try:
            _load_one(source, config, result, base_state, host_api_version, seen, store)
        except Exception as exc:
            problem = PluginProblem(source.target, source.declared_id,
                                    "refused" if isinstance(exc, PluginApiFloorError) else "failed",
                                    str(exc), exc)
            if strict:
                raise
            _log.warning("plugin %s not loaded: %s", source.declared_id or source.target, exc)
            result.failed.append(problem)
    return result


def _load_one(source: PluginSource, config: ClawConfig, result: PluginLoadResult,
              base_state: Path, host_api_version: str, seen: set[str],
              store: Store | None = None) -> None:
    plugins = config.plugins
    known = BUNDLED_ENTRIES.get(source.target) if source.origin == "bundled" else None
    if known is not None:  # gated as after the import below, without it
        if known[0] in seen:
            result.skipped.append(PluginProblem(source.target, known[0], "skipped",
                                                "already loaded from another source"))
            return
        enabled, _, reason = plugin_gate(plugins, known[0], enabled_by_default=known[1])
        if not enabled:
            result.skipped.append(PluginProblem(source.target, known[0], "skipped",
                                                reason or "disabled"))
            return
    if source.declared_id is not None:
        if source.declared_id in seen:
            result.skipped.append(PluginProblem(source.target, source.declared_id, "skipped",
                                                "already loaded from another source"))
            return
        enabled, _, reason = plugin_gate(plugins, source.declared_id)
        if not enabled:
            result.skipped.append(PluginProblem(source.target, source.declared_id, "skipped",
                                                reason or "disabled"))
            return
    static_api = read_static_plugin_api(source.target)
    check_api_floor(source.declared_id or source.target, static_api, host_api_version)
    facts = BUNDLED_FACTS.get(source.target) if known is not None else None
    if known is not None and facts is not None:  # registered now, imported at first use
        _defer(source.target, known, facts, static_api, config, result, base_state,
               host_api_version, store)
        seen.add(known[0])
        return
    module_name, _, attr = source.target.partition(":")
    module = importlib.import_module(module_name.strip())
    entry = _resolve_entry(module, attr.strip() or None, source.target)
    if known is not None and (entry.id, entry.enabled_by_default) != known:
        raise PluginError(f"{source.target}: its entry (id {entry.id!r}, on by default: "
                          f"{entry.enabled_by_default}) is not what BUNDLED_ENTRIES says")
    if source.declared_id is not None and entry.id != source.declared_id:
        raise PluginError(
            f'{source.target}: entry id "{entry.id}" does not match the declared plugin id '
            f'"{source.declared_id}"'
        )
    if entry.id in seen:
        result.skipped.append(PluginProblem(source.target, entry.id, "skipped",
                                            "already loaded from another source"))
        return
    default_on = entry.enabled_by_default if source.origin == "bundled" else True
    enabled, explicitly, reason = plugin_gate(plugins, entry.id, enabled_by_default=default_on)
    if not enabled:
        result.skipped.append(PluginProblem(source.target, entry.id, "skipped",
                                            reason or "disabled"))
        return
    check_api_floor(entry.id, entry.plugin_api, host_api_version)
    plugin_config = plugins.entries[entry.id].config if entry.id in plugins.entries else {}
    api = PluginApi(
        plugin_id=entry.id,
        registry=result.registry,
        registrations=result.registrations,
        config=plugin_config,
        state_dir=base_state / "plugins" / entry.id,
        contracts=entry.contracts,
        middleware_trusted=source.origin == "bundled" or explicitly,
        store=store,
    )
    try:
        outcome = entry.register(api)
        if inspect.isawaitable(outcome):
            if inspect.iscoroutine(outcome):
                outcome.close()
            raise PluginError(f'plugin "{entry.id}": register(api) must be synchronous')
    except BaseException:
        # roll back a half-registered plugin so it cannot be selected
        for harness_id in api.harness_ids:
            result.registry.unregister(harness_id)
            result.registrations.harness_owners.pop(harness_id, None)
        for pid in list(result.registrations.providers):
            kept = [r for r in result.registrations.providers[pid] if r.owner_plugin_id != entry.id]
            if kept:
                result.registrations.providers[pid] = kept
            else:
                del result.registrations.providers[pid]
        result.registrations.providers_changed()
        result.registrations.middlewares[:] = [
            m for m in result.registrations.middlewares if m.owner_plugin_id != entry.id
        ]
        result.registrations.session_bindings[:] = [
            b for b in result.registrations.session_bindings if b[0] != entry.id
        ]
        raise
    seen.add(entry.id)
    result.loaded.append(LoadedPlugin(entry.id, entry.name, source.origin, source.target,
                                      entry.plugin_api, tuple(api.harness_ids)))


def _defer(target: str, known: tuple[str, bool], facts: PluginFacts, static_api: str | None,
           config: ClawConfig, result: PluginLoadResult, base_state: Path,
           host_api_version: str, store: Store | None) -> None:
    """Register a bundled plugin from its facts; `DeferredPlugin.load` imports it."""
    plugin_id = known[0]

    def check(entry_id: str, enabled_by_default: bool, plugin_api: str | None) -> None:
        if (entry_id, enabled_by_default) != known:
            raise PluginError(f"{target}: its entry (id {entry_id!r}, on by default: "
                              f"{enabled_by_default}) is not what BUNDLED_ENTRIES says")
        check_api_floor(entry_id, plugin_api, host_api_version)

    entries = config.plugins.entries
    deferred = DeferredPlugin(
        target=target, plugin_id=plugin_id, facts=facts, registrations=result.registrations,
        config=entries[plugin_id].config if plugin_id in entries else {},
        state_dir=base_state / "plugins" / plugin_id, store=store, check=check,
        rank=lambda owner: next((i for i, p in enumerate(result.loaded) if p.id == owner),
                                len(result.loaded)))
    deferred.declare(result.registry)
    result.loaded.append(LoadedPlugin(plugin_id, facts.name, "bundled", target, static_api,
                                      tuple(h.id for h in facts.harnesses)))
