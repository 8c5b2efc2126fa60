"""Plugin entry of the `claude-cli` harness (Claude Code's CLI as a CLI backend).

Config (`plugins.entries.claude-cli.config`): `command` (a list or a shell-quoted string;
default `claude` on PATH), `env` (extra variables for the child; nothing else is taken
from the host environment), `idleTimeoutSeconds` (300), `interruptGraceSeconds` (5),
`extraArgs` (appended to the command line).

Select it per model: `agents.defaults.models["anthropic/<model>"].agentRuntime.id =
"claude-cli"`. It never claims a turn on its own.
"""

from __future__ import annotations

from clawharness.harnesses.cli.claude import claude_cli_harness
from clawharness.plugin_sdk.agent_harness import PluginApi, define_plugin_entry

__all__ = ["PLUGIN_API", "entry"]

PLUGIN_API = ">=2026.8.1"


def register(api: PluginApi) -> None:
    """Register the harness; its bindings live in the host's store, and the host resets
    and deletes them with each session."""
    bindings = api.session_bindings("claude-cli", native_session=True)
    api.register_agent_harness(claude_cli_harness(config=api.config, bindings=bindings))


entry = define_plugin_entry(
    id="claude-cli",
    name="Claude Code CLI",
    description="Runs selected Anthropic models through Claude Code's CLI (claude -p).",
    register=register,
    plugin_api=PLUGIN_API,
)
