"""What is wrong with the loaded plugins, for `doctor` (findings) and `status` (warnings).

- `plugin-load-failed` (error): a plugin's module did not import, or its
  `register(api)` raised; nothing it would have registered exists.
- `plugin-api-floor` (error): a plugin asks for a newer plugin API than this host's.
- `unregistered-compatible-runtime` (warning): a plugin declares a provider route
  compatible with a runtime no loaded plugin registers, so that route silently runs on
  the built-in runtime instead.
- `plugin-denied` (warning): a plugin the config sets up (`plugins.entries.<id>`, not
  turned off there) that `plugins.deny` or `plugins.allow` keeps from loading, so
  nothing it would register exists.

Pure: reads a `PluginLoadResult`, performs no I/O.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from clawharness.config.schema import PluginsConfig
from clawharness.harness.runtime_ids import BUILTIN_RUNTIME_ID
from clawharness.plugins.loader import PluginLoadResult, PluginProblem

__all__ = ["PluginFinding", "plugin_findings"]


@dataclass(frozen=True, slots=True)
class PluginFinding:
    """One problem with the plugins, where it is, and what to do."""

    code: Literal["plugin-load-failed", "plugin-api-floor", "unregistered-compatible-runtime",
                  "plugin-denied"]
    severity: Literal["error", "warning"]
    #: the config key or plugin it concerns (`plugins.entries.<id>`, `plugins[<target>]`)
    where: str
    message: str


def _where(problem: PluginProblem) -> str:
    if problem.plugin_id:
        return f"plugins.entries.{problem.plugin_id}"
    return f"plugins[{problem.target}]"


def _failure(problem: PluginProblem) -> PluginFinding:
    name = problem.plugin_id or problem.target
    cause = (f"{type(problem.error).__name__}: {problem.reason}"
             if problem.error is not None and not isinstance(problem.error, str)
             else problem.reason)
    if problem.kind == "refused":
        return PluginFinding(
            "plugin-api-floor", "error", _where(problem),
            f'plugin "{name}" ({problem.target}) was refused: {cause}')
    off = (f"set plugins.entries.{problem.plugin_id}.enabled: false"
           if problem.plugin_id else "remove it from plugins.load")
    return PluginFinding(
        "plugin-load-failed", "error", _where(problem),
        f'plugin "{name}" ({problem.target}) failed to load: {cause}; none of its harnesses '
        f"or providers exist. Fix or reinstall the plugin, or turn it off ({off})")


def _denied(problem: PluginProblem, plugins: PluginsConfig) -> PluginFinding | None:
    """A plugin set up in `plugins.entries` that the deny or allow list keeps off."""
    plugin_id = problem.plugin_id
    entry = plugins.entries.get(plugin_id) if plugin_id else None
    if plugin_id is None or entry is None or not entry.enabled:
        return None
    if plugin_id in plugins.deny:
        why, fix = "plugins.deny lists it", f'remove "{plugin_id}" from plugins.deny'
    elif plugins.allow is not None and plugin_id not in plugins.allow:
        why, fix = "plugins.allow does not list it", f'add "{plugin_id}" to plugins.allow'
    else:
        return None
    return PluginFinding(
        "plugin-denied", "warning", f"plugins.entries.{plugin_id}",
        f'plugin "{plugin_id}" is configured (plugins.entries.{plugin_id}) but not loaded: '
        f"{why}, so none of its harnesses or providers exist. To use it, {fix}; "
        f"else remove plugins.entries.{plugin_id}")


def plugin_findings(result: PluginLoadResult,
                    plugins: PluginsConfig | None = None) -> list[PluginFinding]:
    """Every finding for one load: failures first, then plugins set up but kept off by
    `plugins` (its deny and allow lists), then undeclarable compatibility."""
    findings = [_failure(problem) for problem in result.failed]
    if plugins is not None:
        findings += [f for problem in result.skipped
                     if (f := _denied(problem, plugins)) is not None]
    registered = {entry.id for entry in result.registry.list()}
    seen: set[tuple[str, str, str]] = set()
    for provider, registrations in sorted(result.registrations.providers.items()):
        for registration in registrations:
            for route in registration.routes:
                policy = route.runtime_policy
                for runtime in policy.compatible_ids if policy is not None else ():
                    said = (registration.owner_plugin_id, provider, runtime)
                    if runtime == BUILTIN_RUNTIME_ID or runtime in registered or said in seen:
                        continue
                    seen.add(said)
                    findings.append(PluginFinding(
                        "unregistered-compatible-runtime", "warning",
                        f"plugins.entries.{registration.owner_plugin_id}",
                        f'plugin "{registration.owner_plugin_id}" declares provider '
                        f'"{provider}" compatible with runtime "{runtime}", which no loaded '
                        f"plugin registers; its turns run on the built-in runtime instead. "
                        f'Install or enable the plugin that registers "{runtime}", or fix '
                        "the provider's compatible_runtime_ids"))
    return findings
