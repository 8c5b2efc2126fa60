"""The public SDK surface is exactly what was meant: pinned, documented, real, and lazy
only where the checker still sees the real names."""

from __future__ import annotations

import ast
import importlib
import inspect
import subprocess
import sys
import typing
import warnings
from pathlib import Path
from types import ModuleType

import pytest

from clawharness.plugin_sdk import (
    agent_harness,
    agent_harness_cli,
    agent_harness_mcp,
    agent_harness_process,
    agent_harness_runtime,
    agent_harness_session_runtime,
    agent_harness_telemetry,
    agent_harness_tool_runtime,
    testing,
)
from clawharness.plugin_sdk.agent_harness import PluginApi

SURFACE: dict[str, set[str]] = {
    "agent_harness": {
        # registration
        "AgentHarnessV2", "define_plugin_entry", "PluginApi", "PluginEntry", "PluginContracts",
        "ProviderRoute", "ProviderRegistration", "ToolResultMiddlewareRegistration",
        # supports(ctx)
        "SupportContext", "SupportResult", "Supported", "Unsupported", "ModelProviderFacts",
        "RuntimePolicyFact", "AuthFacts",
        # the attempt
        "AttemptParams", "AgentHarnessAttemptParamsV2", "EmbeddedRunAttemptParamsV2",
        "AttemptResult", "AgentHarnessAttemptResult", "AttemptTerminal", "TerminalKind",
        "AgentEvent", "EventSink", "PartialReply", "ToolSpec", "ToolCallContext", "ToolResult",
        "ResolvedModel", "PreparedAuth", "RuntimeArtifact", "HostCapabilities",
        # the transcript and open JSON
        "Message", "ContentBlock", "user_message", "assistant_message", "tool_result_message",
        "message_text", "JsonValue", "JsonObject",
    },
    "agent_harness_runtime": {
        "HarnessError", "AgentHarnessPreflightError", "AttemptSettledError",
        "AttemptResultRejectedError", "ToolPolicyRejectedError", "WorkspacePathEscapeError",
        "RuntimeArtifactMismatchError", "AgentHarnessSessionSupersededError",
        "AgentHarnessUnsupportedError", "AgentHarnessNotRegisteredError",
        "MissingAgentHarnessError",
        "HostCapabilities", "BeforeToolCallDecision", "ToolPolicyCheck", "PartialReply",
        "ObserveToolTerminal", "TransformToolResult", "RequestUserInput", "Mirror",
        "MirrorBarrier", "AttemptParams", "AttemptResult", "AttemptTerminal", "RuntimeArtifact",
        "AgentHarnessAttemptParamsV2", "EmbeddedRunAttemptParamsV2", "assert_runtime_artifact",
        "is_replay_safe_tool_call", "tool_observation", "report_tool_terminal",
        "NativeTurn",
        # shared rules, loaded on first use
        "AgentRuntimePlan", "restore_prepared_user_turn_operational_meta_for_runtime",
        "infer_tool_meta_from_args", "sanitize_tool_args", "sanitize_tool_result",
        "read_embedded_message_delivery_fact", "project_plugin_message_delivery_fact",
        "is_delivered_messaging_tool_result", "MessagingToolCall",
        "is_delivered_messaging_tool_send_to_current_source",
        "extract_messaging_tool_source_reply_payload", "MessagingToolSend", "TurnSource",
        "ReplyPayload", "classify_agent_harness_terminal_outcome", "run_agent_end_side_effects",
        "await_agent_end_side_effects", "format_agent_harness_user_input_prompt",
        "build_agent_harness_user_input_answers", "normalize_agent_harness_user_input_answer",
        "empty_agent_harness_user_input_answers",
        "project_settled_turn_finalization_attempt_result",
        "SettledTurnFinalizationRejectedError",
        # the typed inputs of the shared rules above
        "HarnessTurnOutcome", "UserInputQuestion", "UserInputPromptOptions",
        "FinalizationAttemptFacts",
    },
    "agent_harness_tool_runtime": {
        "resolve_workspace_path", "AcceptedSessionSpawn", "normalize_accepted_session_spawn_result",
        "normalize_tool_name", "expand_tool_groups", "assign_mcp_catalog_safe_server_names",
        "create_agent_harness_tool_surface_runtime",
        "ToolOutcomeLedger", "ToolCallDecision", "tool_call_interrupted_text",
        "ToolCalls", "ToolCallRequest", "ToolCallOutcome", "ToolPermission", "ResultPlacement",
        "text_result", "result_text",
    },
    "agent_harness_session_runtime": {
        "SessionBindings", "BoundSession", "RemovedCallback", "JsonObject", "JsonRecordCodec",
        "NativeSessionRecord", "native_session_bindings",
        "native_session_recovery", "NativeSessionRecovery", "NativeSessionGone", "GoneOutcome",
        "transcript_context", "resolve_state_dir", "StateDirResolution",
        "SessionHookParams", "HostRun", "create_native_session_binding_lifecycle",
        "NativeSessionBindingLifecycle", "BindingOperationParams", "LeaseTimings", "RecordCodec",
        "DictRecordCodec", "Store", "LeaseTimeoutError", "LostLeaseError",
        "AcquisitionRejectedError", "MutationBlockedError", "InvalidRecordError",
        "UnsupportedRecordVersionError", "ValueTooLargeError",
    },
    "agent_harness_process": {
        "spawn", "ChildProcess", "kill_tree", "kill_stray_groups", "SupervisedProcesses",
        "SupervisedProcess", "read_frame_line", "decode_json_frame", "BoundedLineReader",
        "InputLimitError", "MAX_NATIVE_FRAME_BYTES", "MAX_JSON_DEPTH",
    },
    "agent_harness_telemetry": {
        "chat_span", "end_chat", "tool_span", "end_tool", "native_process_span", "trace_env",
        "track_native_process", "content_attribute", "mark_failed", "capture_trace_context",
    },
    "agent_harness_cli": {
        "CliAgentSpec", "CliBackendHarness", "CliBackendError", "CommandLine", "EventMapper",
        "ControlProtocol", "LaunchRequest", "EnvContext", "resolve_command", "CliEvent",
        "SessionStarted", "TextDelta", "AssistantMessage", "TextBlock", "ToolUseBlock",
        "ToolResult", "PermissionRequest", "UnknownControlRequest", "ControlAnswer",
        "NativeSessionMissing", "TurnFinished",
    },
    "agent_harness_mcp": {
        "McpServerLaunch", "codex_mcp_servers", "claude_mcp_config", "acp_mcp_servers",
    },
    "testing": {
        "attempt_params", "declared_route", "undeclared_routes", "RecordingMirror",
        "StaticToolPolicy", "register_plugin", "RegisteredPlugin", "check_harness_contract", "check_attempt_result", "ContractReport",
        "ContractCheck", "HarnessContractSuite",
    },
}

MODULES: dict[str, ModuleType] = {
    "agent_harness": agent_harness,
    "agent_harness_runtime": agent_harness_runtime,
    "agent_harness_tool_runtime": agent_harness_tool_runtime,
    "agent_harness_session_runtime": agent_harness_session_runtime,
    "agent_harness_process": agent_harness_process,
    "agent_harness_cli": agent_harness_cli,
    "agent_harness_mcp": agent_harness_mcp,
    "agent_harness_telemetry": agent_harness_telemetry,
    "testing": testing,
}

#: what the SDK once leaked and must not again
INTERNALS = {"Row", "Commit", "Rollback", "JOURNAL_SUFFIX", "CODEX_LEASE_TIMINGS",
             "HarnessRegistry", "RegisteredHarness", "canonical_json", "fingerprint",
             "DeletionJournal", "PluginStateNamespace", "TOOL_GROUPS", "ToolTerminalObserver",
             "normalize_attempt_terminal", "build_agent_runtime_plan"}

LAZY = {"agent_harness_runtime": agent_harness_runtime,
        "agent_harness_tool_runtime": agent_harness_tool_runtime}


def exported(name: str) -> set[str]:
    module = MODULES[name]
    names = list(module.__all__)
    assert len(names) == len(set(names)), f"{name}.__all__ repeats a name"
    return set(names)


@pytest.mark.parametrize("name", sorted(SURFACE))
def test_each_module_exports_exactly_the_designed_names(name: str) -> None:
    assert exported(name) == SURFACE[name]
    assert not exported(name) & INTERNALS


def test_the_package_lists_every_sdk_module() -> None:
    import clawharness.plugin_sdk as sdk

    assert set(sdk.__all__) == set(SURFACE)


@pytest.mark.parametrize("name", sorted(SURFACE))
def test_every_exported_name_is_documented_in_its_module(name: str) -> None:
    doc = MODULES[name].__doc__ or ""
    undocumented = sorted(n for n in exported(name) if f"`{n}" not in doc)
    assert undocumented == []


@pytest.mark.parametrize("name", sorted(SURFACE))
def test_every_exported_name_resolves_to_a_real_object(name: str) -> None:
    module = MODULES[name]
    for attr in exported(name):
        assert getattr(module, attr) is not None, f"{name}.{attr}"


@pytest.mark.parametrize("name", sorted(LAZY))
def test_lazy_names_are_the_providers_objects_and_visible_to_the_checker(name: str) -> None:
    module = LAZY[name]
    table = module.LAZY_EXPORTS
    assert set(table) <= exported(name)
    for attr, (provider, provider_attr) in table.items():
        assert getattr(module, attr) is getattr(importlib.import_module(provider), provider_attr)
    # the TYPE_CHECKING block imports exactly the lazy names, from the same modules
    tree = ast.parse(Path(inspect.getfile(module)).read_text())
    seen: dict[str, tuple[str, str]] = {}
    for node in tree.body:
        if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING":
            for stmt in node.body:
                if isinstance(stmt, ast.ImportFrom) and stmt.module:
                    for alias in stmt.names:
                        seen[alias.asname or alias.name] = (stmt.module, alias.name)
    assert seen == dict(table)


def test_exported_classes_resolve_their_type_hints() -> None:
    for name in SURFACE:
        module = MODULES[name]
        for attr in sorted(exported(name)):
            value = getattr(module, attr)
            if inspect.isclass(value):
                typing.get_type_hints(value)  # raises NameError on a dangling annotation
            elif inspect.isfunction(value):
                typing.get_type_hints(value)


def test_v1_names_import_with_a_deprecation_warning() -> None:
    for name, replacement in (("AgentHarness", "AgentHarnessV2"),
                              ("AgentHarnessAttemptParams", "AgentHarnessAttemptParamsV2"),
                              ("EmbeddedRunAttemptParams", "EmbeddedRunAttemptParamsV2")):
        with pytest.warns(DeprecationWarning, match=replacement):
            value = getattr(agent_harness, name)
        assert value is getattr(agent_harness, replacement)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert agent_harness.AgentHarnessV2 is not None  # V2 names never warn
    assert "AgentHarness" not in agent_harness.__all__


def test_unknown_and_internal_names_raise_attribute_error() -> None:
    for module in MODULES.values():
        for missing in ("NoSuchThing", "Row", "JOURNAL_SUFFIX", "CODEX_LEASE_TIMINGS"):
            with pytest.raises(AttributeError):
                getattr(module, missing)


def test_plugin_api_shows_what_a_plugin_may_use() -> None:
    listed = set(dir(PluginApi))
    assert {"id", "store", "config", "state_dir", "logger", "harness_ids",
            "register_agent_harness", "register_provider", "session_bindings",
            "register_session_bindings", "on_agent_end",
            "register_agent_tool_result_middleware"} <= listed
    assert PluginApi.store.__doc__ and "host's store" in PluginApi.store.__doc__


def test_sdk_imports_without_loading_the_lazy_providers() -> None:
    code = (
        "import sys, clawharness.plugin_sdk.agent_harness_runtime as r, "
        "clawharness.plugin_sdk.agent_harness_tool_runtime as t;"
        "mods = ['clawharness.tools.sanitize', 'clawharness.delivery.facts', "
        "'clawharness.attempt.finalize_projection', 'clawharness.tools.surface'];"
        "print(','.join(m for m in mods if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""
