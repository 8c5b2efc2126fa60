"""`clawharness.plugin_sdk.agent_harness_cli`: a CLI agent as a harness, from a description.

Describe the agent in a `CliAgentSpec` and `CliBackendHarness(spec, bindings=...)` does
the rest (docs/cli-backends.md): one supervised process per session binding, resume and
fork, a lost native session recovered, streaming, mirroring, permission questions
through the host's tool policy, abort and deadline.

The description
    `CliAgentSpec` (with `CommandLine`, `EventMapper`, `ControlProtocol`), and what a
    launch gets (`LaunchRequest`, `EnvContext`).

The events an `EventMapper` produces (`CliEvent`)
    `SessionStarted`, `TextDelta`, `AssistantMessage` (of `TextBlock` and `ToolUseBlock`),
    `ToolResult`, `PermissionRequest`, `UnknownControlRequest`, `ControlAnswer`,
    `NativeSessionMissing` (the runtime's own "no such session"), `TurnFinished`,
    `HostMcpMessage` (a message to the host's in-process MCP server).

The host tools a runtime lacks (`sessions_spawn`, ...)
    A spec with `host_tools` (a `HostToolsChannel`) is offered them each turn as an MCP
    server the host serves over the runtime's control channel, scoped to the turn and
    run through the host's tool policy (`_cli_backend.host_mcp`).

The bundled `claude-cli` harness is one such description. Every name here is defined by
the SDK (`clawharness.plugin_sdk._cli_backend`), not by a bundled harness.
"""

from __future__ import annotations

from clawharness.plugin_sdk._cli_backend.events import (
    AssistantMessage,
    CliEvent,
    ControlAnswer,
    HostMcpMessage,
    NativeSessionMissing,
    PermissionRequest,
    SessionStarted,
    TextBlock,
    TextDelta,
    ToolResult,
    ToolUseBlock,
    TurnFinished,
    UnknownControlRequest,
)
from clawharness.plugin_sdk._cli_backend.harness import (
    CliBackendHarness,
)
from clawharness.plugin_sdk._cli_backend.spec import (
    CliAgentSpec,
    CommandLine,
    ControlProtocol,
    EnvContext,
    EventMapper,
    HostToolsChannel,
    LaunchRequest,
)

__all__ = [
    "AssistantMessage",
    "CliAgentSpec",
    "CliBackendHarness",
    "CliEvent",
    "CommandLine",
    "ControlAnswer",
    "ControlProtocol",
    "EnvContext",
    "EventMapper",
    "HostMcpMessage",
    "HostToolsChannel",
    "LaunchRequest",
    "NativeSessionMissing",
    "PermissionRequest",
    "SessionStarted",
    "TextBlock",
    "TextDelta",
    "ToolResult",
    "ToolUseBlock",
    "TurnFinished",
    "UnknownControlRequest",
]
