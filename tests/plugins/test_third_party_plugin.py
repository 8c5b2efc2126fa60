"""A third-party harness plugin as its own installed distribution (entry point
`clawharness.plugins`): selected by config, refused before import when its API floor is
above the host's, and gated by plugins.allow / deny / enabled."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from plugin_dist import make_distribution

from clawharness.config.schema import ClawConfig
from clawharness.errors import PluginApiFloorError
from clawharness.harness.selection import SelectionRequest, select_harness
from clawharness.plugins.loader import load_plugins, read_static_plugin_api

PLUGIN_SOURCE = """
import pathlib

from clawharness.plugin_sdk.agent_harness import (
    AttemptResult, AttemptTerminal, Supported, Unsupported, define_plugin_entry,
)

PLUGIN_API = "{floor}"
SENTINEL = {sentinel!r}
if SENTINEL:
    pathlib.Path(SENTINEL).write_text("imported")


class AcmeHarness:
    id = "acme"
    label = "Acme native agent"

    def supports(self, ctx):
        mp = ctx.model_provider
        ok = mp is not None and mp.runtime_policy is not None and "acme" in mp.runtime_policy.compatible_ids
        return Supported(priority=50) if ok else Unsupported(reason="route is not acme-compatible")

    async def run_attempt(self, params):
        return AttemptResult(terminal=AttemptTerminal.ok(), session_id_used=params.session_id,
                             assistant_texts=["acme says hi"])


def register(api):
    label = str(api.config.get("endpoint", "default")) + "|" + str(api.state_dir)
    api.register_provider("acme", api="acme-native", compatible_runtime_ids=["acme"],
                          models=["acme-1"], label=label)
    api.register_agent_harness(AcmeHarness())


plugin = define_plugin_entry("acme-native", "Acme Native", "Runs acme models natively.",
                             register, plugin_api=PLUGIN_API)
"""


@pytest.fixture
def site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    site = tmp_path / "site"
    site.mkdir()
    monkeypatch.syspath_prepend(str(site))
    before = set(sys.modules)
    yield site
    for name in set(sys.modules) - before:
        if name.startswith(("acme_", "futuristic_")):
            del sys.modules[name]


def install(site: Path, *, package: str, floor: str, sentinel: Path | None = None,
            init_sentinel: Path | None = None) -> None:
    init = f"import pathlib\npathlib.Path({str(init_sentinel)!r}).write_text('x')\n" if (
        init_sentinel) else ""
    make_distribution(
        site, dist_name=package.replace("_", "-"), plugin_id="acme-native", package=package,
        module_body=PLUGIN_SOURCE.format(floor=floor, sentinel=str(sentinel) if sentinel else ""),
        init_body=init,
    )


def test_installed_plugin_is_selected_by_config(site: Path, tmp_path: Path) -> None:
    install(site, package="acme_harness_dist", floor=">=2026.8.1")
    config = ClawConfig.model_validate(
        {"models": {"providers": {"acme": {"agentRuntime": {"id": "acme"}}}}})
    loaded = load_plugins(config, state_dir=tmp_path / "state", bundled=())
    assert loaded.failed == []
    assert [p.id for p in loaded.loaded] == ["acme-native"]
    assert loaded.loaded[0].origin == "entry-point"
    decision = select_harness(config, loaded.registry,
                              SelectionRequest(provider="acme", model_id="acme-1"), env={},
                              provider_routes=loaded.registrations.provider_routes())
    assert decision.selected_harness_id == "acme"
    assert decision.selected_reason == "forced_plugin"
    assert decision.owner_plugin_id == "acme-native"


def test_installed_plugin_claims_its_provider_in_auto_mode_through_route_facts(
    site: Path, tmp_path: Path,
) -> None:
    install(site, package="acme_auto_dist", floor=">=2026.8.1")
    loaded = load_plugins(ClawConfig(), state_dir=tmp_path / "state", bundled=())
    routes = loaded.registrations.provider_routes()
    decision = select_harness(ClawConfig(), loaded.registry,
                              SelectionRequest(provider="acme", model_id="acme-1"), env={},
                              provider_routes=routes)
    assert decision.selected_reason == "auto_plugin" and decision.selected_harness_id == "acme"
    other = select_harness(ClawConfig(), loaded.registry,
                           SelectionRequest(provider="anthropic", model_id="m"), env={},
                           provider_routes=routes)
    assert other.selected_reason == "auto_openclaw"


def test_floor_above_host_is_refused_before_any_plugin_code_runs(
    site: Path, tmp_path: Path,
) -> None:
    sentinel, init_sentinel = tmp_path / "module-ran", tmp_path / "package-ran"
    install(site, package="futuristic_plugin", floor=">=2099.1.1", sentinel=sentinel,
            init_sentinel=init_sentinel)
    assert read_static_plugin_api("futuristic_plugin.plugin:plugin") == ">=2099.1.1"
    result = load_plugins(ClawConfig(), state_dir=tmp_path / "state", bundled=())
    assert result.loaded == []
    assert len(result.failed) == 1
    problem = result.failed[0]
    assert problem.kind == "refused" and isinstance(problem.error, PluginApiFloorError)
    assert "requires plugin API >=2099.1.1" in problem.reason and "2026.9.6" in problem.reason
    assert not sentinel.exists() and not init_sentinel.exists()
    assert "futuristic_plugin" not in sys.modules
    with pytest.raises(PluginApiFloorError):
        load_plugins(ClawConfig(), state_dir=tmp_path / "state", strict=True,
                     bundled=())


@pytest.mark.parametrize("plugins_cfg", [
    {"deny": ["acme-native"]},
    {"allow": ["something-else"]},
    {"entries": {"acme-native": {"enabled": False}}},
])
def test_gated_off_plugins_are_never_imported(site: Path, tmp_path: Path,
                                              plugins_cfg: dict[str, object]) -> None:
    sentinel = tmp_path / "module-ran"
    install(site, package="acme_gated_dist", floor=">=2026.8.1", sentinel=sentinel)
    result = load_plugins(ClawConfig.model_validate({"plugins": plugins_cfg}),
                          state_dir=tmp_path / "state", bundled=())
    assert result.loaded == [] and result.failed == []
    assert [s.plugin_id for s in result.skipped] == ["acme-native"]
    assert not sentinel.exists()


def test_plugin_config_and_state_dir_reach_the_plugin(site: Path, tmp_path: Path) -> None:
    install(site, package="acme_cfg_dist", floor="2026.8.1")
    config = ClawConfig.model_validate(
        {"plugins": {"entries": {"acme-native": {"config": {"endpoint": "local"}}}}})
    result = load_plugins(config, state_dir=tmp_path / "state", bundled=())
    assert [p.id for p in result.loaded] == ["acme-native"]
    assert result.registrations.provider_owner_plugin_ids("acme") == ("acme-native",)
    [registration] = result.registrations.providers["acme"]
    endpoint, _, state = (registration.label or "").partition("|")
    assert endpoint == "local"
    assert Path(state) == tmp_path / "state" / "plugins" / "acme-native"
