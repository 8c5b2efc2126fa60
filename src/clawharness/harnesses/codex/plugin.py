"""The bundled Codex plugin: registers the `codex` harness.

Load it by module path (`clawharness.harnesses.codex.plugin:entry`); it ships disabled:
enable it with `plugins.entries.codex.enabled: true` (and list `codex` in
`plugins.allow` under a restrictive allowlist). Config lives in
`plugins.entries.codex.config.appServer` (see `clawharness.harnesses.codex.config`).
"""

from __future__ import annotations

from pathlib import Path

from clawharness.harnesses.codex.bindings import CodexBindings
from clawharness.harnesses.codex.config import parse_app_server_config
from clawharness.harnesses.codex.harness import CodexHarness, default_home_root
from clawharness.plugin_sdk.agent_harness import PluginApi, define_plugin_entry
from clawharness.plugin_sdk.agent_harness_runtime import HarnessError
from clawharness.plugin_sdk.agent_harness_session_runtime import (
    Store,
)

__all__ = ["PLUGIN_API", "entry", "register"]

#: the oldest plugin API this plugin works with
PLUGIN_API = ">=2026.8.1"


def register(api: PluginApi) -> None:
    """Validate the config and register the harness (no process starts here)."""
    config = parse_app_server_config(api.config)
    state_dir = Path(api.state_dir)

    async def host_store() -> Store:
        # bindings live in the host's plugin_state, beside the session rows they belong to
        if api.store is None:
            raise HarnessError("the codex harness needs the host's store for its thread "
                               "bindings; run it inside a clawharness host")
        return api.store

    home_root = Path(config.home).expanduser() if config.home else default_home_root(state_dir)
    api.register_agent_harness(
        CodexHarness(config, bindings=CodexBindings(host_store), home_root=home_root))


entry = define_plugin_entry(
    id="codex",
    name="OpenAI Codex",
    description="Runs agent turns on OpenAI's Codex app-server (codex app-server, JSON lines "
                "over stdio); Codex owns the native thread, the host the transcript.",
    register=register,
    plugin_api=PLUGIN_API,
    enabled_by_default=False,
)
