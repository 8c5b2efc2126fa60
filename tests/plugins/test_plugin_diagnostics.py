"""plugin_findings: failures are errors that say what to do; undeclarable compatibility
is a warning, once per plugin, provider and runtime."""

from __future__ import annotations

from clawharness.errors import PluginApiFloorError
from clawharness.harness.registry import HarnessRegistry
from clawharness.harness.support import ProviderRoute
from clawharness.harness.types import RuntimePolicyFact
from clawharness.plugins.diagnostics import plugin_findings
from clawharness.plugins.entry import PluginRegistrations, ProviderRegistration
from clawharness.plugins.loader import PluginLoadResult, PluginProblem


def result(**kw: object) -> PluginLoadResult:
    return PluginLoadResult(registry=HarnessRegistry(), registrations=PluginRegistrations(),
                            **kw)  # type: ignore[arg-type]


def test_a_refused_floor_and_a_failed_import_are_errors_naming_the_plugin() -> None:
    floor = PluginApiFloorError('plugin "future" requires plugin API >=2099.1')
    broken = ImportError("cannot import name 'X'")
    found = plugin_findings(result(failed=[
        PluginProblem("future_plugin:entry", "future", "refused", str(floor), floor),
        PluginProblem("broken_plugin:entry", "broken", "failed", str(broken), broken)]))
    assert [(f.code, f.severity, f.where) for f in found] == [
        ("plugin-api-floor", "error", "plugins.entries.future"),
        ("plugin-load-failed", "error", "plugins.entries.broken")]
    assert "PluginApiFloorError" in found[0].message
    assert "ImportError: cannot import name 'X'" in found[1].message
    assert "plugins.entries.broken.enabled: false" in found[1].message


def test_each_unregistered_compatible_runtime_is_warned_once() -> None:
    routes = (ProviderRoute(runtime_policy=RuntimePolicyFact(("ghost", "openclaw"))),
              ProviderRoute(api="other", runtime_policy=RuntimePolicyFact(("ghost",))),
              ProviderRoute())
    loaded = result()
    loaded.registrations.providers["haunted"] = [
        ProviderRegistration("haunted", "ghosts", routes=routes)]
    [finding] = plugin_findings(loaded)
    assert (finding.code, finding.severity) == ("unregistered-compatible-runtime", "warning")
    assert '"ghosts"' in finding.message and '"ghost"' in finding.message
