"""The bundled Codex plugin: registers the `codex` harness.

Load it by module path (`clawharness.harnesses.codex.plugin:entry`); it ships disabled:
enable it with `plugins.entries.codex.enabled: true` (and list `codex` in
`plugins.allow` under a restrictive allowlist). Config lives in
`plugins.entries.codex.config.appServer` (see `clawharness.harnesses.codex.config`).
"""

from __future__ import annotations

from pathlib import Path

from clawharness.harnesses.codex._sdk import Store, open_store
from clawharness.harnesses.codex.bindings import CodexBindings
from clawharness.harnesses.codex.config import parse_app_server_config
from clawharness.harnesses.codex.harness import CodexHarness, default_home_root
from clawharness.plugin_sdk.agent_harness import PluginApi, define_plugin_entry

__all__ = ["PLUGIN_API", "entry", "register"]

#: the oldest plugin API this plugin works with
PLUGIN_API = ">=2026.8.1"


def register(api: PluginApi) -> None:
    """Validate the config and register the harness (no process starts here)."""
    config = parse_app_server_config(api.config)
    state_dir = Path(api.state_dir)

    async def open_binding_store() -> Store:
        # TODO(sdk): use the host's store once PluginApi exposes plugin state
        state_dir.mkdir(parents=True, exist_ok=True)
        store = open_store(state_dir / "codex-bindings.db")
        await store.open()
        return store

    home_root = Path(config.home).expanduser() if config.home else default_home_root(state_dir)
    api.register_agent_harness(
        CodexHarness(config, bindings=CodexBindings(open_binding_store), home_root=home_root))


entry = define_plugin_entry(
    id="codex",
    name="OpenAI Codex",
    description="Runs agent turns on OpenAI's Codex app-server (codex app-server, JSON lines "
                "over stdio); Codex owns the native thread, the host the transcript.",
    register=register,
    plugin_api=PLUGIN_API,
    enabled_by_default=False,
)
