"""`clawharness.plugin_sdk.agent_harness_runtime`: helpers a harness uses while it runs.

Errors, attempt types and the replay-safety check are imported eagerly. The helpers live in the core modules
named in `LAZY_EXPORTS` and load on first access, so this module imports cleanly even
when a providing module is absent from a build (the access then raises AttributeError
naming the module). Seed name -> Python name: docs/seed-names.md.
"""

# Names in __all__ that LAZY_EXPORTS serves are defined by __getattr__, not statically.
# ruff: noqa: F822

from __future__ import annotations

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
from clawharness.harness.capabilities import BeforeToolCallDecision, HostCapabilities
from clawharness.harness.gates import assert_runtime_artifact
from clawharness.harness.types import AttemptParams, AttemptResult, AttemptTerminal, RuntimeArtifact
from clawharness.plugin_sdk._lazy import LazyTable, install_lazy_exports
from clawharness.tools.replay import is_replay_safe_tool_call

#: public name -> (providing module, attribute)
LAZY_EXPORTS: LazyTable = {
    # runtime plan (params.runtime_plan)
    "AgentRuntimePlan": ("clawharness.attempt.runtime_plan", "AgentRuntimePlan"),
    "build_agent_runtime_plan": ("clawharness.attempt.runtime_plan", "build_agent_runtime_plan"),
    # terminal outcomes and classification
    "agent_harness_attempt_terminal": ("clawharness.attempt.terminal",
                                       "agent_harness_attempt_terminal"),
    "Terminal": ("clawharness.attempt.terminal", "Terminal"),
    "TerminalFailure": ("clawharness.attempt.terminal", "TerminalFailure"),
    "LegacyTerminalFlags": ("clawharness.attempt.terminal", "LegacyTerminalFlags"),
    "HarnessTurnOutcome": ("clawharness.attempt.run_result", "HarnessTurnOutcome"),
    "EmbeddedRunClassificationParams": ("clawharness.attempt.run_result",
                                        "EmbeddedRunClassificationParams"),
    "EmbeddedRunResult": ("clawharness.attempt.run_result", "EmbeddedRunResult"),
    "RunMeta": ("clawharness.attempt.run_result", "RunMeta"),
    "RunPayload": ("clawharness.attempt.run_result", "RunPayload"),
    "normalize_attempt_terminal": ("clawharness.attempt.terminal", "normalize_attempt_terminal"),
    "merge_attempt_terminal": ("clawharness.attempt.terminal", "merge_attempt_terminal"),
    "project_attempt_terminal": ("clawharness.attempt.terminal", "project_attempt_terminal"),
    "classify_agent_harness_terminal_outcome": (
        "clawharness.attempt.classify", "classify_agent_harness_terminal_outcome"),
    "classify_embedded_agent_run_result_for_model_fallback": (
        "clawharness.attempt.classify", "classify_embedded_agent_run_result_for_model_fallback"),
    "normalize_usage": ("clawharness.attempt.usage", "normalize_usage"),
    # settled-turn finalization
    "project_settled_turn_finalization_attempt_result": (
        "clawharness.attempt.finalize_projection",
        "project_settled_turn_finalization_attempt_result"),
    "FinalizationAttemptFacts": ("clawharness.attempt.finalize_projection",
                                 "FinalizationAttemptFacts"),
    "SettledTurnFinalizationRejectedError": (
        "clawharness.attempt.finalize_result", "SettledTurnFinalizationRejectedError"),
    # user input
    "UserInputQuestion": ("clawharness.harness.user_input", "UserInputQuestion"),
    "UserInputPromptOptions": ("clawharness.harness.user_input", "UserInputPromptOptions"),
    "format_agent_harness_user_input_prompt": (
        "clawharness.harness.user_input", "format_agent_harness_user_input_prompt"),
    "build_agent_harness_user_input_answers": (
        "clawharness.harness.user_input", "build_agent_harness_user_input_answers"),
    "normalize_agent_harness_user_input_answer": (
        "clawharness.harness.user_input", "normalize_agent_harness_user_input_answer"),
    "empty_agent_harness_user_input_answers": (
        "clawharness.harness.user_input", "empty_agent_harness_user_input_answers"),
    "normalize_question_timeout_seconds": (
        "clawharness.harness.user_input", "normalize_question_timeout_seconds"),
    # prepared user turn
    "restore_prepared_user_turn_operational_meta_for_runtime": (
        "clawharness.sessions.user_turn",
        "restore_prepared_user_turn_operational_meta_for_runtime"),
    "is_subagent_session_key": ("clawharness.sessions.subagent", "is_subagent_session_key"),
    # tool metadata, results and sanitizing
    "infer_tool_meta_from_args": ("clawharness.tool_display", "infer_tool_meta_from_args"),
    "format_tool_progress_output": ("clawharness.tools.results", "format_tool_progress_output"),
    "TOOL_PROGRESS_OUTPUT_MAX_CHARS": ("clawharness.tools.results",
                                       "TOOL_PROGRESS_OUTPUT_MAX_CHARS"),
    "extract_tool_error_message": ("clawharness.tools.results", "extract_tool_error_message"),
    "is_tool_result_error": ("clawharness.tools.results", "is_tool_result_error"),
    "sanitize_tool_args": ("clawharness.tools.sanitize", "sanitize_tool_args"),
    "sanitize_tool_result": ("clawharness.tools.sanitize", "sanitize_tool_result"),
    "is_agent_tool_replay_safe": ("clawharness.tools.replay", "is_agent_tool_replay_safe"),
    "split_sandbox_bind_spec": ("clawharness.tools.sandbox", "split_sandbox_bind_spec"),
    "assign_mcp_catalog_safe_server_names": (
        "clawharness.tools.mcp_names", "assign_mcp_catalog_safe_server_names"),
    "expand_tool_groups": ("clawharness.tools.groups", "expand_tool_groups"),
    "ToolTerminalObserver": ("clawharness.attempt.outcomes", "ToolTerminalObserver"),
    # delivery facts
    "project_plugin_message_delivery_fact": (
        "clawharness.delivery.facts", "project_plugin_message_delivery_fact"),
    "read_embedded_message_delivery_fact": (
        "clawharness.delivery.facts", "read_embedded_message_delivery_fact"),
    "is_delivered_messaging_tool_result": (
        "clawharness.delivery.messaging_tools", "is_delivered_messaging_tool_result"),
    "is_messaging_tool": ("clawharness.delivery.messaging_tools", "is_messaging_tool"),
    "is_messaging_tool_send_action": (
        "clawharness.delivery.messaging_tools", "is_messaging_tool_send_action"),
    "extract_messaging_tool_source_reply_payload": (
        "clawharness.delivery.source_reply", "extract_messaging_tool_source_reply_payload"),
    "is_delivered_messaging_tool_send_to_current_source": (
        "clawharness.delivery.source_reply", "is_delivered_messaging_tool_send_to_current_source"),
    "is_silent_payload": ("clawharness.delivery.silent", "is_silent_payload"),
    # the typed inputs of the delivery helpers above
    "MessagingToolCall": ("clawharness.delivery.messaging_tools", "MessagingToolCall"),
    "MessagingToolSend": ("clawharness.delivery.source_reply", "MessagingToolSend"),
    "TurnSource": ("clawharness.delivery.source_reply", "TurnSource"),
    "ReplyPayload": ("clawharness.delivery.reply_content", "ReplyPayload"),
    # agent_end side effects
    "run_agent_end_side_effects": ("clawharness.attempt.side_effects", "run_agent_end_side_effects"),
    "await_agent_end_side_effects": ("clawharness.attempt.side_effects",
                                     "await_agent_end_side_effects"),
}

__all__ = [
    "TOOL_PROGRESS_OUTPUT_MAX_CHARS",
    "AgentHarnessAttemptParamsV2",
    "AgentHarnessNotRegisteredError",
    "AgentHarnessPreflightError",
    "AgentHarnessSessionSupersededError",
    "AgentHarnessUnsupportedError",
    "AgentRuntimePlan",
    "AttemptParams",
    "AttemptResult",
    "AttemptSettledError",
    "AttemptTerminal",
    "BeforeToolCallDecision",
    "EmbeddedRunAttemptParamsV2",
    "EmbeddedRunClassificationParams",
    "EmbeddedRunResult",
    "FinalizationAttemptFacts",
    "HarnessError",
    "HarnessTurnOutcome",
    "HostCapabilities",
    "LegacyTerminalFlags",
    "MessagingToolCall",
    "MessagingToolSend",
    "MissingAgentHarnessError",
    "ReplyPayload",
    "RunMeta",
    "RunPayload",
    "RuntimeArtifact",
    "RuntimeArtifactMismatchError",
    "SettledTurnFinalizationRejectedError",
    "Terminal",
    "TerminalFailure",
    "ToolPolicyRejectedError",
    "ToolTerminalObserver",
    "TurnSource",
    "UserInputPromptOptions",
    "UserInputQuestion",
    "WorkspacePathEscapeError",
    "agent_harness_attempt_terminal",
    "assert_runtime_artifact",
    "assign_mcp_catalog_safe_server_names",
    "await_agent_end_side_effects",
    "build_agent_harness_user_input_answers",
    "build_agent_runtime_plan",
    "classify_agent_harness_terminal_outcome",
    "classify_embedded_agent_run_result_for_model_fallback",
    "empty_agent_harness_user_input_answers",
    "expand_tool_groups",
    "extract_messaging_tool_source_reply_payload",
    "extract_tool_error_message",
    "format_agent_harness_user_input_prompt",
    "format_tool_progress_output",
    "infer_tool_meta_from_args",
    "is_agent_tool_replay_safe",
    "is_delivered_messaging_tool_result",
    "is_delivered_messaging_tool_send_to_current_source",
    "is_messaging_tool",
    "is_messaging_tool_send_action",
    "is_replay_safe_tool_call",
    "is_silent_payload",
    "is_subagent_session_key",
    "is_tool_result_error",
    "merge_attempt_terminal",
    "normalize_agent_harness_user_input_answer",
    "normalize_attempt_terminal",
    "normalize_question_timeout_seconds",
    "normalize_usage",
    "project_attempt_terminal",
    "project_plugin_message_delivery_fact",
    "project_settled_turn_finalization_attempt_result",
    "read_embedded_message_delivery_fact",
    "restore_prepared_user_turn_operational_meta_for_runtime",
    "run_agent_end_side_effects",
    "sanitize_tool_args",
    "sanitize_tool_result",
    "split_sandbox_bind_spec",
]

AgentHarnessAttemptParamsV2 = AttemptParams
EmbeddedRunAttemptParamsV2 = AttemptParams

_lazy_getattr, _lazy_dir = install_lazy_exports(__name__, LAZY_EXPORTS)


def __getattr__(name: str) -> object:
    return _lazy_getattr(name)


def __dir__() -> list[str]:
    return _lazy_dir()
