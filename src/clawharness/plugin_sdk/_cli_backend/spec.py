"""The description of a CLI agent (`CliAgentSpec`) and what one launch gets."""

from __future__ import annotations

import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, Protocol

from clawharness.plugin_sdk._cli_backend.events import CliEvent, PermissionRequest
from clawharness.plugin_sdk.agent_harness import (
    AttemptParams,
)
from clawharness.plugin_sdk.agent_harness_mcp import McpServerLaunch
from clawharness.plugin_sdk.agent_harness_runtime import HarnessError

__all__ = ["CliAgentSpec", "CliBackendError", "CommandLine", "ControlProtocol", "EnvContext", "EventMapper", "HostToolsChannel", "LaunchRequest", "config_env", "config_number", "resolve_command"]


class CliBackendError(HarnessError):
    code = "cli_backend_error"


# --- the description of a CLI agent -----------------------------------------------------


@dataclass(frozen=True, slots=True)
class LaunchRequest:
    """What a command line is built from."""

    command: tuple[str, ...]
    model_id: str
    cwd: str
    resume_session_id: str | None = None
    fork: bool = False
    options: Mapping[str, Any] = field(default_factory=dict)
    #: the host's configured MCP servers (`AttemptParams.mcp_servers`) for the runtime
    mcp_servers: Sequence[McpServerLaunch] = ()
    #: this agent's private directory under the harness state (for files a command line
    #: names, e.g. a config holding secrets that must not sit in argv)
    agent_dir: Path | None = None
    #: the host tools the runtime lacks, offered this turn through the host's in-process
    #: MCP server (`CliAgentSpec.host_tools`); empty: none to offer, no server
    host_tools: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class EnvContext:
    """What a runtime's environment variables are built from."""

    home: Path
    agent_dir: Path
    params: AttemptParams


class CommandLine(Protocol):
    def argv(self, launch: LaunchRequest) -> list[str]:
        """The full argv: `launch.command` plus the runtime's flags."""
        ...

    def environment(self, ctx: EnvContext) -> dict[str, str]:
        """Runtime-specific variables (PATH, HOME and the configured env come from the base)."""
        ...


class EventMapper(Protocol):
    def map(self, obj: Mapping[str, Any]) -> Sequence[CliEvent]:
        """The normalized events of one JSON object read from stdout."""
        ...


class HostToolsChannel(Protocol):
    """How a runtime reaches the host's in-process MCP server of the host tools it lacks
    (`clawharness.plugin_sdk._cli_backend.host_mcp`): the server's name in its MCP
    config, and the control answer that carries one JSON-RPC reply back."""

    @property
    def server(self) -> str: ...

    def reply(self, request_id: str, response: Mapping[str, Any] | None) -> Mapping[str, Any]:
        """The answer to the runtime's message (`response`: the JSON-RPC reply, None for a
        notification)."""
        ...


class ControlProtocol(Protocol):
    def handshake(self) -> Sequence[Mapping[str, Any]]:
        """Objects to write once after spawning (before the first user turn)."""
        ...

    def user_turn(self, prompt: str, images: Sequence[Mapping[str, Any]], *,
                  context: str | None = None) -> Mapping[str, Any]:
        """The object that starts one turn; `context` (the host transcript, for a fresh
        native session's first turn) goes before the prompt."""
        ...

    def permission_reply(self, request: PermissionRequest, *, allow: bool,
                         updated_input: Mapping[str, Any] | None,
                         message: str | None) -> Mapping[str, Any]:
        """The answer to a permission question."""
        ...

    def error_reply(self, request_id: str, message: str) -> Mapping[str, Any]:
        """The answer to a control request we do not serve."""
        ...

    def interrupt(self, request_id: str) -> Mapping[str, Any] | None:
        """The object that interrupts the running turn (None: the agent has none)."""
        ...


@dataclass(frozen=True, slots=True)
class CliAgentSpec:
    """Everything the generic harness needs to know about one CLI agent."""

    id: str
    label: str
    default_command: tuple[str, ...]
    command_line: CommandLine
    events: EventMapper
    control: ControlProtocol
    #: providers this harness serves when explicitly requested (`agentRuntime.id`)
    providers: tuple[str, ...] = ()
    #: native tool name -> canonical host tool name (unknown names are lower-cased)
    tool_names: Mapping[str, str] = field(default_factory=dict)
    #: "harness" when the runtime owns authentication
    auth_bootstrap: Literal["harness"] | None = None
    #: the `api` recorded on mirrored assistant messages
    api: str = "cli"
    #: how the runtime is offered the host tools it lacks (`sessions_spawn`, ...) as an
    #: in-process MCP server; None: it is offered none
    host_tools: HostToolsChannel | None = None

    def host_tool(self, native: str) -> str | None:
        """The host tool a native tool name calls through the host's server, else None."""
        if self.host_tools is None:
            return None
        prefix = f"mcp__{self.host_tools.server}__"
        return native[len(prefix):] if native.startswith(prefix) else None

    def canonical_tool(self, native: str) -> str:
        if native in self.tool_names:
            return self.tool_names[native]
        if native.startswith("mcp__"):
            host = self.host_tool(native)
            if host is not None:
                return host
            return native
        return native.lower()


def resolve_command(value: Any, default: Sequence[str]) -> tuple[str, ...]:
    """`command` config: a list of strings, a shell-quoted string, or unset (the default)."""
    if value is None or value == "" or value == []:
        return tuple(default)
    if isinstance(value, str):
        parts = shlex.split(value)
    elif isinstance(value, Sequence) and all(isinstance(p, str) for p in value):
        parts = list(value)
    else:
        raise CliBackendError(f"command must be a list of strings or a string, got {value!r}")
    if not parts:
        raise CliBackendError("command is empty")
    return tuple(parts)


def config_env(value: Any) -> dict[str, str]:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise CliBackendError("env must be a mapping of variable names to strings")
    return {str(k): str(v) for k, v in value.items()}


def config_number(config: Mapping[str, Any], key: str, default: float) -> float:
    value = config.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
        raise CliBackendError(f"{key} must be a number >= 0")
    return float(value)
