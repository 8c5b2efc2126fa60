"""The plugin entry: a provider `echo` whose route declares the `echo` runtime, the echo
harness, and its session bindings (kept in the host's store, reset with each session).

Installed, the distribution's `clawharness.plugins` entry point `echo` names `entry`;
`echo/echo-1` is then a model ref that runs on this harness with no runtime config.
"""

from __future__ import annotations

from clawharness.plugin_sdk.agent_harness import PluginApi, define_plugin_entry

from echo_harness.harness import HARNESS_ID, EchoHarness

__all__ = ["PLUGIN_API", "entry"]

#: the oldest plugin API this plugin works with (read before the module is imported)
PLUGIN_API = ">=2026.8.1"


def register(api: PluginApi) -> None:
    api.register_provider("echo", label="Echo models", compatible_runtime_ids=[HARNESS_ID],
                          models=["echo-1"])
    api.register_agent_harness(EchoHarness(api.session_bindings(HARNESS_ID)))


entry = define_plugin_entry(
    id="echo",
    name="Echo harness",
    description="Echoes the prompt from a native session it keeps per host session.",
    register=register,
    plugin_api=PLUGIN_API,
)
