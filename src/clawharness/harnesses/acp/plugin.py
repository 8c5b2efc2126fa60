"""Plugin entry of the `acp` harness, with its provider `acp`.

Config (`plugins.entries.acp.config`): `agents.<name>.command` (a list) and
`agents.<name>.env` per agent; optional `stateDir` (where agents keep native state;
default `<state dir>/acp`, migrated once from the former `<workspace>/state`),
`cancelGraceSeconds` (5), `shutdownGraceSeconds` (2), `loadTimeoutSeconds` (120: how long
adopting a session waits for the agent's `session/load` replay).

The provider `acp` makes `acp/<name>` a model ref; the harness claims that provider, so
such a ref runs on the `acp` harness with no runtime config.
"""

from __future__ import annotations

from collections.abc import Mapping

from clawharness.harnesses.acp.harness import AcpHarness
from clawharness.plugin_sdk.agent_harness import PluginApi, define_plugin_entry

__all__ = ["PLUGIN_API", "entry"]

PLUGIN_API = ">=2026.8.1"


def register(api: PluginApi) -> None:
    """Register the harness and the provider `acp` (one model per configured agent)."""
    agents = api.config.get("agents")
    names = tuple(sorted(agents)) if isinstance(agents, Mapping) else ()
    # the host resets and deletes the bindings with each session
    bindings = api.session_bindings("acp", native_session=True)
    api.register_agent_harness(AcpHarness(config=api.config, bindings=bindings))
    api.register_provider("acp", label="Agent Client Protocol agents",
                          compatible_runtime_ids=["acp"], models=names)


entry = define_plugin_entry(
    id="acp",
    name="Agent Client Protocol",
    description="Runs any Agent Client Protocol agent (acp/<agent>) over stdio.",
    register=register,
    plugin_api=PLUGIN_API,
)
