"""Bundled plugins registered from their facts (`clawharness.plugins.deferred`): their
harnesses are listed and selected around without importing them, and the first use that
needs a harness's code imports the plugin and registers it as before."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from clawharness.config.schema import ClawConfig
from clawharness.errors import PluginError
from clawharness.harness.support import auto_selection_provider_ids
from clawharness.plugins import loader
from clawharness.plugins.deferred import BUNDLED_FACTS, DeferredHarness, HarnessFacts, PluginFacts
from clawharness.plugins.loader import load_plugins

ACP_AGENTS = {"plugins": {"entries": {"acp": {"config": {"agents": {
    "zed": {"command": ["zed-agent"]}, "amp": {"command": ["amp-acp"]}}}}}}}


def _stand_in(result: loader.PluginLoadResult, harness_id: str) -> DeferredHarness:
    registered = result.registry.get(harness_id)
    assert registered is not None
    assert isinstance(registered.harness, DeferredHarness)
    return registered.harness


def test_the_facts_table_says_what_each_bundled_plugin_registers(tmp_path: Path) -> None:
    """Every row names a bundled plugin on by default, and loading each plugin (which
    checks what it registered against its row) succeeds."""
    import importlib

    result = load_plugins(ClawConfig.model_validate(ACP_AGENTS), state_dir=tmp_path)
    loaded = {p.target: p for p in result.loaded}
    for target, facts in BUNDLED_FACTS.items():
        assert target in loader.BUNDLED_PLUGINS and loader.BUNDLED_ENTRIES[target][1], target
        module, _, attr = target.partition(":")
        entry = getattr(importlib.import_module(module), attr)
        plugin = loaded[target]
        assert (plugin.id, plugin.name, plugin.plugin_api) == (
            entry.id, entry.name, entry.plugin_api)
        assert plugin.harness_ids == tuple(h.id for h in facts.harnesses)
        for harness_facts in facts.harnesses:
            stand_in = _stand_in(result, harness_facts.id)
            real = stand_in.materialize()
            assert stand_in.loaded and not isinstance(real, DeferredHarness)
            assert (real.id, real.label) == (stand_in.id, stand_in.label)
            for harness in (real, stand_in):
                ids = auto_selection_provider_ids(harness)
                assert ids is not None and tuple(ids) == harness_facts.auto_provider_ids


_PROBE = textwrap.dedent("""
    import json, sys
    from pathlib import Path
    from clawharness.config.schema import ClawConfig
    from clawharness.harness.selection import SelectionRequest, select_harness
    from clawharness.harness.status import build_status
    from clawharness.plugins.loader import load_plugins

    config = ClawConfig.model_validate(json.loads(sys.argv[1]))
    result = load_plugins(config, state_dir=Path(sys.argv[2]))
    routes = result.registrations.provider_routes()
    imported = lambda: sorted(m for m in ("clawharness.harnesses.cli.plugin",
                                          "clawharness.harnesses.acp.plugin",
                                          "clawharness.plugin_sdk._cli_backend.harness")
                              if m in sys.modules)
    out = {}
    report = build_status(config, result.registry, env={}, provider_routes=routes)
    out["status"] = [[h.id, h.label, h.owner_plugin_id] for h in report.harnesses]
    out["runtime"] = [m.reason for a in report.agents for m in a.models]
    auto = select_harness(config, result.registry, SelectionRequest("scripted", "m"),
                          env={}, provider_routes=routes)
    out["auto"] = [auto.selected_reason, [[c.id, c.supported, c.reason, c.plugin_id]
                                          for c in auto.candidates]]
    out["imported_before"] = imported()
    chosen = select_harness(config, result.registry, SelectionRequest(
        "anthropic", "claude-sonnet-4", agent_harness_runtime_override="claude-cli"),
        env={}, provider_routes=routes)
    out["explicit"] = [chosen.selected_reason, chosen.selected_harness_id]
    out["imported_after"] = imported()
    print(json.dumps(out))
""")


def test_status_and_auto_selection_import_no_bundled_harness_until_one_is_asked(
        tmp_path: Path) -> None:
    config = {"models": {"providers": {"scripted": {
                  "baseUrl": "http://127.0.0.1:9/v1", "api": "openai-responses",
                  "apiKey": "offline", "models": [{"id": "m"}]}}},
              "agents": {"defaults": {"model": "scripted/m"}}}
    done = subprocess.run([sys.executable, "-c", _PROBE, json.dumps(config), str(tmp_path)],
                          capture_output=True, text=True, check=True, timeout=120)
    out: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    harnesses = {row[0]: row for row in out["status"]}
    assert harnesses["claude-cli"] == ["claude-cli", "Claude Code CLI", "claude-cli"]
    assert harnesses["acp"] == ["acp", "Agent Client Protocol", "acp"]
    assert out["runtime"] == ["auto_openclaw"]
    reason, candidates = out["auto"]
    assert reason == "auto_openclaw"
    by_id = {c[0]: c for c in candidates}
    assert by_id["claude-cli"] == ["claude-cli", False, "harness is explicit-only",
                                   "claude-cli"]
    assert by_id["acp"] == ["acp", False, "provider is not auto-selectable", "acp"]
    assert out["imported_before"] == []
    # an explicit runtime asks the harness's own `supports`: its plugin is imported now
    assert out["explicit"] == ["forced_plugin", "claude-cli"]
    assert out["imported_after"] == ["clawharness.harnesses.cli.plugin",
                                     "clawharness.plugin_sdk._cli_backend.harness"]


def test_a_loaded_plugin_replaces_its_declared_provider_and_brings_its_bindings(
        tmp_path: Path) -> None:
    result = load_plugins(ClawConfig.model_validate(ACP_AGENTS), state_dir=tmp_path)
    declared = result.registrations.providers["acp"]
    assert [(r.owner_plugin_id, r.label, r.models) for r in declared] == [
        ("acp", "Agent Client Protocol agents", ())]
    assert result.registrations.provider_routes()["acp"][0].runtime_policy is not None
    assert result.registrations.session_bindings == []
    stand_in = _stand_in(result, "acp")
    assert not stand_in.loaded
    routes_before = result.registrations.provider_routes()
    stand_in.materialize()
    # the plugin's own registration, with the agents its config names
    assert [(r.owner_plugin_id, r.label, r.models)
            for r in result.registrations.providers["acp"]] == [
        ("acp", "Agent Client Protocol agents", ("amp", "zed"))]
    assert result.registrations.provider_routes() == routes_before
    assert [(owner, b.namespace) for owner, b in result.registrations.session_bindings] == [
        ("acp", "acp.bindings")]
    assert not _stand_in(result, "claude-cli").loaded


async def test_a_session_hook_loads_every_deferred_plugin_first(tmp_path: Path) -> None:
    """Deleting or resetting a session reaches the bindings of every harness, used in
    this process or not: the session hooks' participants include them."""
    from clawharness.harnesses.embedded.harness import OpenClawHarness
    from clawharness.plugins.runtime import PluginRuntime

    runtime = PluginRuntime(ClawConfig(), state_dir=tmp_path, env={},
                            builtin=OpenClawHarness())
    result = runtime.load()
    assert not any(isinstance(r.harness, DeferredHarness) and r.harness.loaded
                   for r in result.registry.list())
    participants = runtime.harnesses_with("with_session_deletion")
    assert all(r.harness.loaded for r in result.registry.list()
               if isinstance(r.harness, DeferredHarness))
    namespaces = {getattr(p, "namespace", None) for p in participants}
    assert {"claude-cli.bindings", "acp.bindings"} <= namespaces
    # bindings keep the plugins' load order, as when they were imported at load
    assert [owner for owner, _ in runtime.registrations.session_bindings] == [
        "claude-cli", "acp"]
    await runtime.dispose()


def test_a_plugin_that_registers_other_than_its_facts_fails_at_first_use(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = "clawharness.harnesses.cli.plugin:entry"
    wrong = PluginFacts("Claude Code CLI", (HarnessFacts("claude-cli", "Claude", ()),))
    monkeypatch.setattr(loader, "BUNDLED_FACTS", {**BUNDLED_FACTS, target: wrong})
    result = load_plugins(ClawConfig(), state_dir=tmp_path)
    stand_in = _stand_in(result, "claude-cli")
    assert stand_in.label == "Claude"
    for _ in range(2):  # and again at every later use
        with pytest.raises(PluginError, match="BUNDLED_FACTS"):
            stand_in.materialize()
    assert not stand_in.loaded and result.registrations.session_bindings == []
    assert _stand_in(result, "acp").materialize() is not None  # the others still load


def test_a_denied_bundled_plugin_is_neither_declared_nor_imported(tmp_path: Path) -> None:
    result = load_plugins(ClawConfig.model_validate({"plugins": {"deny": ["acp"]}}),
                          state_dir=tmp_path)
    assert "acp" not in result.registry and "acp" not in result.registrations.providers
    assert {s.plugin_id: s.reason for s in result.skipped}["acp"] == "denied by plugins.deny"
