"""`clawharness.plugin_sdk.agent_harness_runtime`: what a harness uses while it runs.

Errors to raise and catch
    `HarnessError` (the base), `AgentHarnessPreflightError` (failed before any model
    work; `scope="harness"` when only this harness is at fault), `AttemptSettledError`
    (a host capability used after the attempt), `AttemptResultRejectedError` (the host
    refused a result, e.g. a reply missing from the transcript),
    `ToolPolicyRejectedError`, `WorkspacePathEscapeError`,
    `RuntimeArtifactMismatchError`, `AgentHarnessSessionSupersededError`,
    `AgentHarnessUnsupportedError`, `AgentHarnessNotRegisteredError`,
    `MissingAgentHarnessError`.

Host capabilities and callbacks of an attempt
    `HostCapabilities` (`params.host_capabilities`), its `BeforeToolCallDecision`, the
    `ToolPolicyCheck` protocol behind it, and the callback types `PartialReply`,
    `ObserveToolTerminal`, `TransformToolResult`, `RequestUserInput`, `Mirror`,
    `MirrorBarrier`; the attempt types again (`AttemptParams`, `AttemptResult`,
    `AttemptTerminal`, `RuntimeArtifact`, `AgentHarnessAttemptParamsV2`,
    `EmbeddedRunAttemptParamsV2`); `assert_runtime_artifact`; `is_replay_safe_tool_call`;
    a settled tool call reported the one way every harness reports it: `tool_observation`
    builds the observation, `report_tool_terminal` hands it to `observe_tool_terminal` and
    returns the turn's last tool error as the host answers it; `NativeTurn`, the base of a
    process-owning harness's turn (its record, `emit`, `settle`, `settle_tool_result`,
    `wait_for_stop`).

Shared rules, so a native harness decides as the built-in runtime does (loaded on first
use; see each function's docstring)
    `AgentRuntimePlan` (`params.runtime_plan`); user-message mirrors:
    `restore_prepared_user_turn_operational_meta_for_runtime`; tool display and
    diagnostics: `infer_tool_meta_from_args`, `sanitize_tool_args`,
    `sanitize_tool_result`; delivery facts: `read_embedded_message_delivery_fact`,
    `project_plugin_message_delivery_fact`, `is_delivered_messaging_tool_result`
    (`MessagingToolCall`), `is_delivered_messaging_tool_send_to_current_source`,
    `extract_messaging_tool_source_reply_payload` (`MessagingToolSend`, `TurnSource`,
    `ReplyPayload`); outcomes: `classify_agent_harness_terminal_outcome`
    (`HarnessTurnOutcome`),
    `run_agent_end_side_effects`, `await_agent_end_side_effects`; user input:
    `format_agent_harness_user_input_prompt` (`UserInputQuestion`,
    `UserInputPromptOptions`), `build_agent_harness_user_input_answers`,
    `normalize_agent_harness_user_input_answer`, `empty_agent_harness_user_input_answers`;
    settled-turn finalization: `project_settled_turn_finalization_attempt_result`
    (`FinalizationAttemptFacts`), `SettledTurnFinalizationRejectedError`.

Seed name -> Python name: docs/seed-names.md.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from clawharness.attempt.validate import AttemptResultRejectedError
from clawharness.errors import (
    AgentHarnessNotRegisteredError,
    AgentHarnessPreflightError,
    AgentHarnessSessionSupersededError,
    AgentHarnessUnsupportedError,
    AttemptSettledError,
    HarnessError,
    MissingAgentHarnessError,
    RuntimeArtifactMismatchError,
    ToolPolicyRejectedError,
    WorkspacePathEscapeError,
)
from clawharness.harness.capabilities import (
    BeforeToolCallDecision,
    HostCapabilities,
    ToolPolicyCheck,
)
from clawharness.harness.gates import assert_runtime_artifact
from clawharness.harness.tool_terminal import report_tool_terminal, tool_observation
from clawharness.harness.types import (
    AttemptParams,
    AttemptResult,
    AttemptTerminal,
    Mirror,
    MirrorBarrier,
    ObserveToolTerminal,
    PartialReply,
    RequestUserInput,
    RuntimeArtifact,
    TransformToolResult,
)
from clawharness.plugin_sdk._lazy import LazyTable, install_lazy_exports
from clawharness.plugin_sdk._native_turn import NativeTurn
from clawharness.tools.replay import is_replay_safe_tool_call

if TYPE_CHECKING:
    # the checker's view of the names `LAZY_EXPORTS` serves (kept equal by a test)
    from clawharness.attempt.finalize_projection import (
        FinalizationAttemptFacts,
        project_settled_turn_finalization_attempt_result,
    )
    from clawharness.attempt.finalize_result import SettledTurnFinalizationRejectedError
    from clawharness.attempt.side_effects import (
        await_agent_end_side_effects,
        run_agent_end_side_effects,
    )
    from clawharness.delivery.facts import (
        project_plugin_message_delivery_fact,
        read_embedded_message_delivery_fact,
    )
    from clawharness.delivery.messaging_tools import (
        MessagingToolCall,
        is_delivered_messaging_tool_result,
    )
    from clawharness.delivery.reply_content import ReplyPayload
    from clawharness.delivery.source_reply import (
        MessagingToolSend,
        TurnSource,
        extract_messaging_tool_source_reply_payload,
        is_delivered_messaging_tool_send_to_current_source,
    )
    from clawharness.harness.user_input import (
        UserInputPromptOptions,
        UserInputQuestion,
        build_agent_harness_user_input_answers,
        empty_agent_harness_user_input_answers,
        format_agent_harness_user_input_prompt,
        normalize_agent_harness_user_input_answer,
    )
    from clawharness.runtime_plan.classify import classify_agent_harness_terminal_outcome
    from clawharness.runtime_plan.plan import AgentRuntimePlan
    from clawharness.runtime_plan.run_result import HarnessTurnOutcome
    from clawharness.sessions.user_turn import (
        restore_prepared_user_turn_operational_meta_for_runtime,
    )
    from clawharness.tool_display import infer_tool_meta_from_args
    from clawharness.tools.sanitize import sanitize_tool_args, sanitize_tool_result

#: public name -> (providing module, attribute); loaded on first access, so importing this
#: module stays cheap and cannot close an import cycle through the core
LAZY_EXPORTS: LazyTable = {
    "AgentRuntimePlan": ("clawharness.runtime_plan.plan", "AgentRuntimePlan"),
    "restore_prepared_user_turn_operational_meta_for_runtime": (
        "clawharness.sessions.user_turn",
        "restore_prepared_user_turn_operational_meta_for_runtime"),
    "infer_tool_meta_from_args": ("clawharness.tool_display", "infer_tool_meta_from_args"),
    "sanitize_tool_args": ("clawharness.tools.sanitize", "sanitize_tool_args"),
    "sanitize_tool_result": ("clawharness.tools.sanitize", "sanitize_tool_result"),
    "read_embedded_message_delivery_fact": (
        "clawharness.delivery.facts", "read_embedded_message_delivery_fact"),
    "project_plugin_message_delivery_fact": (
        "clawharness.delivery.facts", "project_plugin_message_delivery_fact"),
    "MessagingToolCall": ("clawharness.delivery.messaging_tools", "MessagingToolCall"),
    "is_delivered_messaging_tool_result": (
        "clawharness.delivery.messaging_tools", "is_delivered_messaging_tool_result"),
    "MessagingToolSend": ("clawharness.delivery.source_reply", "MessagingToolSend"),
    "TurnSource": ("clawharness.delivery.source_reply", "TurnSource"),
    "is_delivered_messaging_tool_send_to_current_source": (
        "clawharness.delivery.source_reply", "is_delivered_messaging_tool_send_to_current_source"),
    "extract_messaging_tool_source_reply_payload": (
        "clawharness.delivery.source_reply", "extract_messaging_tool_source_reply_payload"),
    "ReplyPayload": ("clawharness.delivery.reply_content", "ReplyPayload"),
    "classify_agent_harness_terminal_outcome": (
        "clawharness.runtime_plan.classify", "classify_agent_harness_terminal_outcome"),
    "run_agent_end_side_effects": ("clawharness.attempt.side_effects",
                                   "run_agent_end_side_effects"),
    "await_agent_end_side_effects": ("clawharness.attempt.side_effects",
                                     "await_agent_end_side_effects"),
    "format_agent_harness_user_input_prompt": (
        "clawharness.harness.user_input", "format_agent_harness_user_input_prompt"),
    "build_agent_harness_user_input_answers": (
        "clawharness.harness.user_input", "build_agent_harness_user_input_answers"),
    "normalize_agent_harness_user_input_answer": (
        "clawharness.harness.user_input", "normalize_agent_harness_user_input_answer"),
    "empty_agent_harness_user_input_answers": (
        "clawharness.harness.user_input", "empty_agent_harness_user_input_answers"),
    "project_settled_turn_finalization_attempt_result": (
        "clawharness.attempt.finalize_projection",
        "project_settled_turn_finalization_attempt_result"),
    "SettledTurnFinalizationRejectedError": (
        "clawharness.attempt.finalize_result", "SettledTurnFinalizationRejectedError"),
    "FinalizationAttemptFacts": (
        "clawharness.attempt.finalize_projection", "FinalizationAttemptFacts"),
    "HarnessTurnOutcome": ("clawharness.runtime_plan.run_result", "HarnessTurnOutcome"),
    "UserInputQuestion": ("clawharness.harness.user_input", "UserInputQuestion"),
    "UserInputPromptOptions": ("clawharness.harness.user_input", "UserInputPromptOptions"),
}

__all__ = [
    "AgentHarnessAttemptParamsV2",
    "AgentHarnessNotRegisteredError",
    "AgentHarnessPreflightError",
    "AgentHarnessSessionSupersededError",
    "AgentHarnessUnsupportedError",
    "AgentRuntimePlan",
    "AttemptParams",
    "AttemptResult",
    "AttemptResultRejectedError",
    "AttemptSettledError",
    "AttemptTerminal",
    "BeforeToolCallDecision",
    "EmbeddedRunAttemptParamsV2",
    "FinalizationAttemptFacts",
    "HarnessError",
    "HarnessTurnOutcome",
    "HostCapabilities",
    "MessagingToolCall",
    "MessagingToolSend",
    "Mirror",
    "MirrorBarrier",
    "MissingAgentHarnessError",
    "NativeTurn",
    "ObserveToolTerminal",
    "PartialReply",
    "ReplyPayload",
    "RequestUserInput",
    "RuntimeArtifact",
    "RuntimeArtifactMismatchError",
    "SettledTurnFinalizationRejectedError",
    "ToolPolicyCheck",
    "ToolPolicyRejectedError",
    "TransformToolResult",
    "TurnSource",
    "UserInputPromptOptions",
    "UserInputQuestion",
    "WorkspacePathEscapeError",
    "assert_runtime_artifact",
    "await_agent_end_side_effects",
    "build_agent_harness_user_input_answers",
    "classify_agent_harness_terminal_outcome",
    "empty_agent_harness_user_input_answers",
    "extract_messaging_tool_source_reply_payload",
    "format_agent_harness_user_input_prompt",
    "infer_tool_meta_from_args",
    "is_delivered_messaging_tool_result",
    "is_delivered_messaging_tool_send_to_current_source",
    "is_replay_safe_tool_call",
    "normalize_agent_harness_user_input_answer",
    "project_plugin_message_delivery_fact",
    "project_settled_turn_finalization_attempt_result",
    "read_embedded_message_delivery_fact",
    "report_tool_terminal",
    "restore_prepared_user_turn_operational_meta_for_runtime",
    "run_agent_end_side_effects",
    "sanitize_tool_args",
    "sanitize_tool_result",
    "tool_observation",
]

#: `run_attempt`'s parameter type (seed names)
AgentHarnessAttemptParamsV2 = AttemptParams
EmbeddedRunAttemptParamsV2 = AttemptParams

if not TYPE_CHECKING:
    __getattr__, __dir__ = install_lazy_exports(__name__, LAZY_EXPORTS)
