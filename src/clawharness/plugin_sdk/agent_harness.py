"""`clawharness.plugin_sdk.agent_harness`: what a harness plugin registers and returns.

Registration
    `define_plugin_entry(id=, name=, description=, register=)` declares the plugin; its
    `register(api)` receives a `PluginApi` and calls `api.register_agent_harness(harness)`.
    A harness is any object of the `AgentHarnessV2` shape (a structural Protocol: `id`,
    `label`, `supports(ctx)`, `run_attempt(params)`; no base class to inherit).

Selection: `supports(ctx)`
    A `SupportContext` in (`ctx.model_provider` holds the route's facts: its
    `runtime_policy.compatible_ids` and `request_transport_overrides`), a
    `SupportResult` (`Supported` | `Unsupported`) out. An absent route policy is never
    permission: claim a route only when it lists your id, and refuse one with authored
    request overrides you cannot reproduce.

The attempt: `run_attempt(params)`
    `AttemptParams` (frozen; the prompt, the `ResolvedModel`, tools as `ToolSpec`s, the
    transcript so far, the callbacks) in, an `AttemptResult` with an `AttemptTerminal` out; progress
    goes to `params.on_agent_event` as `AgentEvent`s. A host tool returns a `ToolResult`
    (`{"content": [ContentBlock, ...], "isError"?: bool, "details"?: JSON}`).

The transcript
    `Message` and `ContentBlock` type transcript messages (JSON in the wire shape);
    `user_message`, `assistant_message` (text and tool calls) and `tool_result_message`
    build them and `message_text` reads one's text. `JsonValue` / `JsonObject` type open
    JSON (tool arguments, config, binding records).

The value types here are the host's own records; the SDK publishes them as its contract
(their fields are pinned by the SDK's tests). Seed names -> Python names:
docs/seed-names.md.
"""

from __future__ import annotations

from clawharness._json import JsonObject, JsonValue
from clawharness.harness.messages import ContentBlock, Message
from clawharness.harness.types import (
    AgentEvent,
    AttemptParams,
    AttemptResult,
    AttemptTerminal,
    ResolvedModel,
    SupportContext,
    Supported,
    SupportResult,
    ToolResult,
    ToolSpec,
    Unsupported,
)
from clawharness.harness.types import AgentHarness as _AgentHarnessProtocol
from clawharness.plugin_sdk._messages import (
    assistant_message,
    message_text,
    tool_result_message,
    user_message,
)
from clawharness.plugins.entry import PluginApi, define_plugin_entry

__all__ = [
    "AgentEvent",
    "AgentHarnessV2",
    "AttemptParams",
    "AttemptResult",
    "AttemptTerminal",
    "ContentBlock",
    "JsonObject",
    "JsonValue",
    "Message",
    "PluginApi",
    "ResolvedModel",
    "SupportContext",
    "SupportResult",
    "Supported",
    "ToolResult",
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
