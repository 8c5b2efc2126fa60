"""`clawharness.plugin_sdk.agent_harness`: what a harness plugin registers and returns.

Registration
    `define_plugin_entry` declares the plugin; its `register(api)` receives a
    `PluginApi` and calls `api.register_agent_harness(harness)`. A harness is any object
    of the `AgentHarnessV2` shape (a structural Protocol: no base class to inherit).
    `PluginEntry`, `PluginContracts` (manifest contracts), `ProviderRoute`,
    `ProviderRegistration` and `ToolResultMiddlewareRegistration` are the values of
    that API.

Selection: `supports(ctx)`
    `SupportContext` (with `ModelProviderFacts`, `RuntimePolicyFact`, `AuthFacts`) in,
    `SupportResult` (`Supported` | `Unsupported`) out. An absent route policy is never
    permission: claim a route only when `ctx.model_provider.runtime_policy` lists your id.

The attempt: `run_attempt(params)`
    `AttemptParams` (alias `AgentHarnessAttemptParamsV2`, `EmbeddedRunAttemptParamsV2`)
    with `ResolvedModel`, `PreparedAuth`, `ToolSpec`, `ToolCallContext`,
    `HostCapabilities`, and the callbacks `PartialReply`, `EventSink` (`AgentEvent`).
    It returns an `AttemptResult` (alias `AgentHarnessAttemptResult`) with an
    `AttemptTerminal` (`TerminalKind`), maybe a `RuntimeArtifact`.

The transcript
    `Message` and `ContentBlock` type transcript messages (JSON in the wire shape);
    `user_message`, `assistant_message`, `tool_result_message` build them and
    `message_text` reads one's text. `messages_snapshot` is what the host stores;
    `assistant_texts` must also be in it (`AttemptResult.reply` does both).
    `JsonValue` / `JsonObject` type open JSON (tool arguments, config, binding records).

Deprecated V1 names (`AgentHarness`, `AgentHarnessAttemptParams`,
`EmbeddedRunAttemptParams`) still import, with a DeprecationWarning, until 2026-10-12;
compatibility is type-level only (the host supplies `host_capabilities` on every attempt).
"""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING

from clawharness._json import JsonObject, JsonValue
from clawharness.harness.capabilities import HostCapabilities
from clawharness.harness.messages import (
    ContentBlock,
    Message,
    assistant_message,
    message_text,
    tool_result_message,
    user_message,
)
from clawharness.harness.support import ProviderRoute
from clawharness.harness.types import (
    AgentEvent,
    AttemptParams,
    AttemptResult,
    AttemptTerminal,
    AuthFacts,
    EventSink,
    ModelProviderFacts,
    PartialReply,
    PreparedAuth,
    ResolvedModel,
    RuntimeArtifact,
    RuntimePolicyFact,
    SupportContext,
    Supported,
    SupportResult,
    TerminalKind,
    ToolCallContext,
    ToolResult,
    ToolSpec,
    Unsupported,
)
from clawharness.harness.types import AgentHarness as _AgentHarnessProtocol
from clawharness.plugins.entry import (
    PluginApi,
    PluginContracts,
    PluginEntry,
    ProviderRegistration,
    ToolResultMiddlewareRegistration,
    define_plugin_entry,
)

__all__ = [
    "AgentEvent",
    "AgentHarnessAttemptParamsV2",
    "AgentHarnessAttemptResult",
    "AgentHarnessV2",
    "AttemptParams",
    "AttemptResult",
    "AttemptTerminal",
    "AuthFacts",
    "ContentBlock",
    "EmbeddedRunAttemptParamsV2",
    "EventSink",
    "HostCapabilities",
    "JsonObject",
    "JsonValue",
    "Message",
    "ModelProviderFacts",
    "PartialReply",
    "PluginApi",
    "PluginContracts",
    "PluginEntry",
    "PreparedAuth",
    "ProviderRegistration",
    "ProviderRoute",
    "ResolvedModel",
    "RuntimeArtifact",
    "RuntimePolicyFact",
    "SupportContext",
    "SupportResult",
    "Supported",
    "TerminalKind",
    "ToolCallContext",
    "ToolResult",
    "ToolResultMiddlewareRegistration",
    "ToolSpec",
    "Unsupported",
    "assistant_message",
    "define_plugin_entry",
    "message_text",
    "tool_result_message",
    "user_message",
]

#: the registration contract a harness implements (`id`, `label`, `supports`,
#: `run_attempt`; optional capabilities are documented on the Protocol)
AgentHarnessV2 = _AgentHarnessProtocol
#: `run_attempt`'s parameter type (`host_capabilities` always present)
AgentHarnessAttemptParamsV2 = AttemptParams
EmbeddedRunAttemptParamsV2 = AttemptParams
#: what `run_attempt` returns
AgentHarnessAttemptResult = AttemptResult

#: last day the deprecated names are served
DEPRECATED_REMOVAL_DATE = "2026-10-12"
#: deprecated V1 name -> replacement name in this module
DEPRECATED_NAMES: dict[str, str] = {
    "AgentHarness": "AgentHarnessV2",
    "AgentHarnessAttemptParams": "AgentHarnessAttemptParamsV2",
    "EmbeddedRunAttemptParams": "EmbeddedRunAttemptParamsV2",
}

if TYPE_CHECKING:
    # type-level compatibility for published V1 plugins; at run time the names warn
    AgentHarness = _AgentHarnessProtocol
    AgentHarnessAttemptParams = AttemptParams
    EmbeddedRunAttemptParams = AttemptParams
else:

    def __getattr__(name: str) -> object:
        replacement = DEPRECATED_NAMES.get(name)
        if replacement is None:
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
        warnings.warn(
            f"clawharness.plugin_sdk.agent_harness.{name} is deprecated and will be removed "
            f"after {DEPRECATED_REMOVAL_DATE}; use {replacement}",
            DeprecationWarning,
            stacklevel=2,
        )
        return globals()[replacement]

    def __dir__() -> list[str]:
        return sorted(set(globals()) | set(DEPRECATED_NAMES))
