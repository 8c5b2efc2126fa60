"""The public SDK surface is exactly what was meant, and lazy names resolve or fail clearly."""

from __future__ import annotations

import importlib
import subprocess
import sys
import warnings

import pytest

from clawharness.plugin_sdk import (
    agent_harness,
    agent_harness_runtime,
    agent_harness_session_runtime,
    agent_harness_tool_runtime,
)

AGENT_HARNESS = {
    "AgentEvent", "AgentHarnessAttemptParamsV2", "AgentHarnessAttemptResult",
    "AgentHarnessSupport", "AgentHarnessSupportContext", "AgentHarnessV2", "AttemptParams",
    "AttemptResult", "AttemptTerminal", "AuthFacts", "EmbeddedRunAttemptParamsV2",
    "HarnessRegistry", "HostCapabilities", "ModelProviderFacts", "PluginApi", "PluginContracts",
    "PluginEntry", "PreparedAuth", "ProviderRegistration", "ProviderRoute", "RegisteredHarness",
    "ResolvedModel", "RuntimeArtifact", "RuntimePolicyFact", "SupportContext", "SupportResult",
    "Supported", "ToolCallContext", "ToolResultMiddlewareRegistration", "ToolSpec",
    "Unsupported", "define_plugin_entry",
}

RUNTIME_EAGER = {
    "AgentHarnessAttemptParamsV2", "AgentHarnessNotRegisteredError", "AgentHarnessPreflightError",
    "AgentHarnessSessionSupersededError", "AgentHarnessUnsupportedError", "AttemptParams",
    "HarnessError", "BeforeToolCallDecision", "WorkspacePathEscapeError",
    "AttemptResult", "AttemptSettledError", "AttemptTerminal", "EmbeddedRunAttemptParamsV2",
    "HostCapabilities", "MissingAgentHarnessError", "RuntimeArtifact",
    "RuntimeArtifactMismatchError", "ToolPolicyRejectedError", "assert_runtime_artifact",
    "is_replay_safe_tool_call",
}

RUNTIME_LAZY = {
    "MessagingToolCall", "MessagingToolSend", "ReplyPayload", "TurnSource",
    "EmbeddedRunClassificationParams", "EmbeddedRunResult", "FinalizationAttemptFacts",
    "HarnessTurnOutcome", "LegacyTerminalFlags", "RunMeta", "RunPayload", "Terminal",
    "TerminalFailure", "UserInputPromptOptions", "UserInputQuestion",
    "AgentRuntimePlan", "SettledTurnFinalizationRejectedError", "TOOL_PROGRESS_OUTPUT_MAX_CHARS",
    "ToolTerminalObserver", "agent_harness_attempt_terminal",
    "assign_mcp_catalog_safe_server_names", "await_agent_end_side_effects",
    "build_agent_harness_user_input_answers", "build_agent_runtime_plan",
    "classify_agent_harness_terminal_outcome",
    "classify_embedded_agent_run_result_for_model_fallback",
    "empty_agent_harness_user_input_answers", "expand_tool_groups",
    "extract_messaging_tool_source_reply_payload", "extract_tool_error_message",
    "format_agent_harness_user_input_prompt", "format_tool_progress_output",
    "infer_tool_meta_from_args", "is_agent_tool_replay_safe", "is_delivered_messaging_tool_result",
    "is_delivered_messaging_tool_send_to_current_source", "is_messaging_tool",
    "is_messaging_tool_send_action", "is_silent_payload",
    "is_subagent_session_key", "is_tool_result_error", "merge_attempt_terminal",
    "normalize_agent_harness_user_input_answer", "normalize_attempt_terminal",
    "normalize_question_timeout_seconds", "normalize_usage", "project_attempt_terminal",
    "project_plugin_message_delivery_fact", "project_settled_turn_finalization_attempt_result",
    "read_embedded_message_delivery_fact",
    "restore_prepared_user_turn_operational_meta_for_runtime", "run_agent_end_side_effects",
    "sanitize_tool_args", "sanitize_tool_result", "split_sandbox_bind_spec",
}

TOOL_RUNTIME = {
    "TOOL_GROUPS", "AcceptedSessionSpawn", "assign_mcp_catalog_safe_server_names",
    "create_agent_harness_tool_surface_runtime", "expand_tool_groups",
    "normalize_accepted_session_spawn_result", "normalize_tool_name",
}


def test_public_surfaces_are_exactly_what_was_meant() -> None:
    assert set(agent_harness.__all__) == AGENT_HARNESS
    assert set(agent_harness_runtime.__all__) == RUNTIME_EAGER | RUNTIME_LAZY
    assert set(agent_harness_runtime.LAZY_EXPORTS) == RUNTIME_LAZY
    assert set(agent_harness_tool_runtime.__all__) == TOOL_RUNTIME | {"resolve_workspace_path"}
    assert set(agent_harness_tool_runtime.LAZY_EXPORTS) == TOOL_RUNTIME
    bindings = importlib.import_module(agent_harness_session_runtime.BINDINGS_MODULE)
    assert set(agent_harness_session_runtime.__all__) == (
        set(bindings.__all__) | {"SessionHookParams", "Store"})
    for module in (agent_harness, agent_harness_runtime, agent_harness_tool_runtime):
        assert len(module.__all__) == len(set(module.__all__))


def test_eager_names_are_real_objects() -> None:
    for name in AGENT_HARNESS:
        assert getattr(agent_harness, name) is not None
    for name in RUNTIME_EAGER:
        assert getattr(agent_harness_runtime, name) is not None


@pytest.mark.parametrize("name", sorted(RUNTIME_LAZY))
def test_each_lazy_runtime_name_resolves_or_names_its_provider(name: str) -> None:
    provider, attr = agent_harness_runtime.LAZY_EXPORTS[name]
    try:
        value = getattr(agent_harness_runtime, name)
    except AttributeError as exc:
        assert provider in str(exc)
        return
    module = importlib.import_module(provider)
    assert value is getattr(module, attr)


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


def test_unknown_names_raise_attribute_error() -> None:
    with pytest.raises(AttributeError):
        agent_harness.NoSuchThing  # type: ignore[attr-defined]  # noqa: B018
    with pytest.raises(AttributeError):
        agent_harness_runtime.no_such_helper  # noqa: B018
    with pytest.raises(AttributeError):
        agent_harness_session_runtime.NoSuchBindingThing  # noqa: B018
    with pytest.raises(AttributeError):
        agent_harness_session_runtime._private  # noqa: B018


def test_session_runtime_serves_the_binding_modules_public_names() -> None:
    try:
        bindings = importlib.import_module(agent_harness_session_runtime.BINDINGS_MODULE)
    except ModuleNotFoundError:
        pytest.skip("the binding lifecycle module is not in this build")
    exported = list(getattr(bindings, "__all__", ()))
    assert exported, "the bindings module should declare its public names"
    for name in exported:
        assert getattr(agent_harness_session_runtime, name) is getattr(bindings, name)


def test_sdk_imports_without_loading_the_lazy_providers() -> None:
    code = (
        "import sys, clawharness.plugin_sdk.agent_harness_runtime as r, "
        "clawharness.plugin_sdk.agent_harness_tool_runtime as t;"
        "mods = ['clawharness.tools.sanitize', 'clawharness.delivery.facts', "
        "'clawharness.attempt.finalize_projection'];"
        "print(','.join(m for m in mods if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""
