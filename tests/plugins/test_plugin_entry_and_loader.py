"""Plugin entries, the PluginApi, module-path loading and the API floor."""

from __future__ import annotations

import re
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from clawharness.config.schema import ClawConfig
from clawharness.errors import PluginApiFloorError, PluginError
from clawharness.harness.registry import HarnessRegistry
from clawharness.plugins.entry import (
    PluginApi,
    PluginContracts,
    PluginRegistrations,
    define_plugin_entry,
)
from clawharness.plugins.loader import api_floor_satisfied, check_api_floor, load_plugins

HARNESS_CLASS = """
from clawharness.plugin_sdk.agent_harness import (
    AttemptResult, AttemptTerminal, Supported, define_plugin_entry,
)

class H:
    def __init__(self, hid):
        self.id = hid
        self.label = hid + " harness"

    def supports(self, ctx):
        return Supported()

    async def run_attempt(self, params):
        return AttemptResult(terminal=AttemptTerminal.ok(), session_id_used=params.session_id)
"""


@pytest.fixture
def modules(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    root = tmp_path / "mods"
    root.mkdir()
    monkeypatch.syspath_prepend(str(root))
    before = set(sys.modules)
    yield root
    for name in set(sys.modules) - before:
        if name.startswith("tp_"):
            del sys.modules[name]


def write(root: Path, name: str, body: str) -> None:
    (root / f"{name}.py").write_text(HARNESS_CLASS + textwrap.dedent(body))


def api(**kw: Any) -> PluginApi:
    return PluginApi(plugin_id="p", registry=HarnessRegistry(), **kw)


def test_define_plugin_entry_validates_id_and_register() -> None:
    entry = define_plugin_entry("my-native", "Mine", "d", lambda api: None,
                                plugin_api=">=2026.8.1",
                                contracts={"agentToolResultMiddleware": ["Codex", "openclaw"]})
    assert entry.contracts == PluginContracts(("codex", "openclaw"))
    with pytest.raises(PluginError, match="invalid"):
        define_plugin_entry("My Plugin", "x", "d", lambda api: None)
    with pytest.raises(PluginError, match="callable"):
        define_plugin_entry("ok", "x", "d", "nope")  # type: ignore[arg-type]


def test_middleware_needs_trust_and_declared_runtimes() -> None:
    def handler(result: Any) -> Any:
        return result

    with pytest.raises(PluginError, match="explicitly enabled"):
        api(contracts=PluginContracts(("codex",))).register_agent_tool_result_middleware(
            handler, runtimes=["codex"])
    trusted = api(contracts=PluginContracts(("codex",)), middleware_trusted=True)
    with pytest.raises(PluginError, match="does not declare"):
        trusted.register_agent_tool_result_middleware(handler, runtimes=["codex", "openclaw"])
    with pytest.raises(PluginError, match="non-empty"):
        trusted.register_agent_tool_result_middleware(handler, runtimes=["codex"], matcher=[])
    with pytest.raises(PluginError, match="canonical tool id"):
        trusted.register_agent_tool_result_middleware(handler, runtimes=["codex"],
                                                      matcher=["Exec Tool"])


def test_each_middleware_registration_keeps_its_runtime_matcher_pair() -> None:
    registrations = PluginRegistrations()
    plugin_api = PluginApi(plugin_id="p", registry=HarnessRegistry(),
                           registrations=registrations,
                           contracts=PluginContracts(("codex", "openclaw")),
                           middleware_trusted=True)

    def handler(result: Any) -> Any:
        return result

    plugin_api.register_agent_tool_result_middleware(handler, runtimes=["codex"], matcher=["exec"])
    plugin_api.register_agent_tool_result_middleware(handler, runtimes=["openclaw"],
                                                     matcher=["read"])
    assert [(m.runtimes, m.matcher) for m in registrations.middlewares] == [
        (("codex",), ("exec",)), (("openclaw",), ("read",))]
    assert len(registrations.middlewares_for("codex", "exec")) == 1
    assert registrations.middlewares_for("codex", "read") == []
    assert registrations.middlewares_for("openclaw", "exec") == []
    plugin_api.register_agent_tool_result_middleware(handler, runtimes=["codex-app-server"])
    assert len(registrations.middlewares_for("codex", "anything")) == 1


def test_register_provider_shorthand_and_validation() -> None:
    plugin_api = api()
    reg = plugin_api.register_provider("ACP", compatible_runtime_ids=["acp"], models=["claude"])
    assert reg.id == "acp" and reg.routes[0].runtime_policy is not None
    assert reg.routes[0].runtime_policy.compatible_ids == ("acp",)
    undeclared = plugin_api.register_provider("other")
    assert undeclared.routes[0].runtime_policy is None
    with pytest.raises(PluginError):
        plugin_api.register_provider("a/b")


@pytest.mark.parametrize(("spec", "ok"), [
    (">=2026.8.1", True), ("2026.9.6", True), (">=2026.9.7", False), (">2026.9.6", False),
    (">=2026.1, <2027", True), ("==2026.9.6", True), ("<=2026.9", False), ("!=2026.9.6", False),
])
def test_api_floor_comparison(spec: str, ok: bool) -> None:
    assert api_floor_satisfied(spec, "2026.9.6") is ok


def test_api_floor_errors_are_clear() -> None:
    with pytest.raises(PluginApiFloorError, match="not understood"):
        api_floor_satisfied("newest please")
    with pytest.raises(PluginApiFloorError, match=re.escape('plugin "x" requires plugin API >=3000.1')):
        check_api_floor("x", ">=3000.1")
    check_api_floor("x", None)


def test_entries_module_and_load_paths_are_loaded(modules: Path, tmp_path: Path) -> None:
    write(modules, "tp_one", """
def register(api):
    api.register_agent_harness(H("one"))
entry = define_plugin_entry("one", "One", "", register)
""")
    write(modules, "tp_two", """
def register(api):
    api.register_agent_harness(H("two"))
PLUGIN = define_plugin_entry("two", "Two", "", register)
""")
    config = ClawConfig.model_validate({"plugins": {
        "entries": {"one": {"module": "tp_one"}}, "load": ["tp_two:PLUGIN"]}})
    result = load_plugins(config, state_dir=tmp_path, bundled=())
    assert [p.id for p in result.loaded] == ["one", "two"]
    assert [e.id for e in result.registry.list()] == ["one", "two"]
    owner = result.registry.get("two")
    assert owner is not None and owner.owner_plugin_id == "two"


def test_a_load_path_plugin_is_still_gated_by_its_id(modules: Path, tmp_path: Path) -> None:
    write(modules, "tp_denied", """
def register(api):
    raise AssertionError("register must not run for a denied plugin")
plugin = define_plugin_entry("denied", "D", "", register)
""")
    config = ClawConfig.model_validate({"plugins": {"load": ["tp_denied"], "deny": ["denied"]}})
    result = load_plugins(config, state_dir=tmp_path, bundled=())
    assert result.loaded == [] and [s.plugin_id for s in result.skipped] == ["denied"]


def test_bundled_plugins_can_ship_off_by_default(modules: Path, tmp_path: Path) -> None:
    write(modules, "tp_bundled", """
def register(api):
    api.register_agent_harness(H("bundled"))
plugin = define_plugin_entry("bundled", "B", "", register, enabled_by_default=False)
""")
    off = load_plugins(ClawConfig(), state_dir=tmp_path, bundled=("tp_bundled",))
    assert off.loaded == [] and "enabled" in off.skipped[0].reason
    on = load_plugins(ClawConfig.model_validate(
        {"plugins": {"entries": {"bundled": {"enabled": True}}}}),
        state_dir=tmp_path, bundled=("tp_bundled",))
    assert [p.id for p in on.loaded] == ["bundled"] and on.loaded[0].origin == "bundled"


def test_a_failing_register_is_rolled_back(modules: Path, tmp_path: Path) -> None:
    write(modules, "tp_half", """
def register(api):
    api.register_agent_harness(H("half"))
    api.register_provider("halfprov")
    raise RuntimeError("oops after registering")
plugin = define_plugin_entry("half", "Half", "", register)
""")
    config = ClawConfig.model_validate({"plugins": {"load": ["tp_half"]}})
    result = load_plugins(config, state_dir=tmp_path, bundled=())
    assert result.loaded == [] and result.failed[0].kind == "failed"
    assert "oops" in result.failed[0].reason
    assert "half" not in result.registry and "halfprov" not in result.registrations.providers


def test_async_register_and_id_mismatch_are_refused(modules: Path, tmp_path: Path) -> None:
    write(modules, "tp_async", """
async def register(api):
    pass
plugin = define_plugin_entry("asyncy", "A", "", register)
""")
    write(modules, "tp_mismatch", """
plugin = define_plugin_entry("actual-id", "M", "", lambda api: None)
""")
    config = ClawConfig.model_validate({"plugins": {
        "load": ["tp_async"], "entries": {"declared-id": {"module": "tp_mismatch"}}}})
    result = load_plugins(config, state_dir=tmp_path, bundled=())
    reasons = sorted(p.reason for p in result.failed)
    assert any("does not match the declared plugin id" in r for r in reasons)
    assert any("must be synchronous" in r for r in reasons)


def test_entry_floor_is_checked_after_import_as_a_backstop(modules: Path, tmp_path: Path) -> None:
    write(modules, "tp_late_floor", """
plugin = define_plugin_entry("late", "L", "", lambda api: None, plugin_api=">=2999.1")
""")
    config = ClawConfig.model_validate({"plugins": {"load": ["tp_late_floor"]}})
    result = load_plugins(config, state_dir=tmp_path, bundled=())
    assert result.failed[0].kind == "refused"


def test_the_bundled_entries_table_says_what_each_bundled_entry_says() -> None:
    import importlib

    from clawharness.plugins import loader

    assert set(loader.BUNDLED_ENTRIES) == set(loader.BUNDLED_PLUGINS)
    for target, known in loader.BUNDLED_ENTRIES.items():
        module, _, attr = target.partition(":")
        entry = getattr(importlib.import_module(module), attr)
        assert (entry.id, entry.enabled_by_default) == known, target


def test_a_bundled_plugin_off_by_default_is_not_imported_unless_enabled(tmp_path: Path) -> None:
    import json
    import subprocess

    code = textwrap.dedent(f"""
        import json, sys
        from pathlib import Path
        from clawharness.config.schema import ClawConfig
        from clawharness.plugins.loader import load_plugins
        result = load_plugins(ClawConfig.model_validate(json.loads(sys.argv[1])),
                              state_dir=Path({str(tmp_path)!r}))
        print(json.dumps([[p.id for p in result.loaded],
                          {{s.plugin_id: s.reason for s in result.skipped}},
                          "clawharness.harnesses.codex.plugin" in sys.modules]))
    """)

    def run(config: dict[str, Any]) -> list[Any]:
        out = subprocess.run([sys.executable, "-c", code, json.dumps(config)],
                             capture_output=True, text=True, check=True, timeout=120)
        return list(json.loads(out.stdout.strip().splitlines()[-1]))

    loaded, skipped, imported = run({})
    assert "codex" not in loaded and not imported
    assert skipped["codex"] == ("bundled but off by default; set "
                                "plugins.entries.codex.enabled: true")
    loaded, skipped, imported = run({"plugins": {"entries": {"codex": {"enabled": True}}}})
    assert "codex" in loaded and imported and "codex" not in skipped


def test_a_bundled_entry_that_disagrees_with_the_table_fails_to_load(
        modules: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from clawharness.plugins import loader

    write(modules, "tp_listed", """
def register(api):
    api.register_agent_harness(H("listed"))
plugin = define_plugin_entry("listed", "L", "", register, enabled_by_default=False)
""")
    monkeypatch.setattr(loader, "BUNDLED_ENTRIES", {"tp_listed:plugin": ("listed", True)})
    result = load_plugins(ClawConfig(), state_dir=tmp_path, bundled=("tp_listed:plugin",))
    assert result.loaded == [] and "BUNDLED_ENTRIES" in result.failed[0].reason
