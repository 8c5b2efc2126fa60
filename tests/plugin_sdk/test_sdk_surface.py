"""The public SDK surface is exactly what was meant (like httpx's surface test): each
module's names are pinned here, so the SDK grows only on purpose; each name is
documented, typed, and defined by the SDK or deliberately owned by it."""

from __future__ import annotations

import importlib
import inspect
import subprocess
import sys
import typing
from types import ModuleType

import pytest

import clawharness.plugin_sdk as sdk
from clawharness.plugin_sdk.agent_harness import PluginApi

#: every public name of every SDK module; a change here is a change of the SDK's contract
SURFACE: dict[str, frozenset[str]] = {
    "agent_harness": frozenset({
        # registration and selection
        "AgentHarnessV2", "define_plugin_entry", "PluginApi",
        "SupportContext", "SupportResult", "Supported", "Unsupported",
        # the attempt
        "AttemptParams", "AttemptResult", "AttemptTerminal", "AgentEvent", "ResolvedModel",
        "ToolSpec", "ToolResult",
        # the transcript and open JSON
        "Message", "ContentBlock", "user_message", "assistant_message",
        "tool_result_message", "message_text", "JsonValue", "JsonObject",
    }),
    "agent_harness_runtime": frozenset({
        "HarnessError", "AgentHarnessPreflightError", "NativeTurn", "RuntimeArtifact",
    }),
    "agent_harness_tool_runtime": frozenset({
        "ToolCalls", "ToolCallRequest", "ToolCallOutcome", "ToolPermission", "ResultPlacement",
        "text_result", "resolve_workspace_path", "WorkspacePathEscapeError",
    }),
    "agent_harness_session_runtime": frozenset({
        "SessionBindings", "BoundSession", "RemovedBinding", "NativeSessionRecord",
        "native_session_bindings", "JsonRecordCodec", "InvalidRecordError",
        "native_session_recovery", "NativeSessionRecovery", "NativeSessionGone",
        "transcript_context", "resolve_state_dir",
        # a harness that owns its binding lifecycle (the bundled Codex harness)
        "create_native_session_binding_lifecycle", "NativeSessionBindingLifecycle",
        "BindingOperationParams", "LeaseTimings", "DictRecordCodec", "SessionHookParams",
        "Store",
        # portable sessions: adopt a native session, hand one back (docs/portable-sessions.md)
        "AdoptRequest", "NativeAdoption", "NativeEntry", "HandoffRequest", "NativeHandoff",
        "read_session_lines", "NativeSessionFormatError", "NativeSessionNotFoundError",
        "NativeSessionUnsupportedError",
    }),
    "agent_harness_process": frozenset({
        "spawn", "ChildProcess", "kill_stray_groups", "SupervisedProcesses",
        "read_frame_line", "decode_json_frame", "BoundedLineReader", "InputLimitError",
        "MAX_NATIVE_FRAME_BYTES",
    }),
    "agent_harness_telemetry": frozenset({
        "chat_span", "end_chat", "native_process_start", "track_native_process",
        "capture_trace_context", "trace_carrier",
    }),
    "agent_harness_cli": frozenset({
        "CliAgentSpec", "CliBackendHarness", "CommandLine", "EventMapper", "ControlProtocol",
        "LaunchRequest", "EnvContext", "CliEvent", "SessionStarted", "TextDelta",
        "AssistantMessage", "TextBlock", "ToolUseBlock", "ToolResult", "PermissionRequest",
        "UnknownControlRequest", "ControlAnswer", "NativeSessionMissing", "TurnFinished",
        "HostToolsChannel", "HostMcpMessage",
    }),
    "agent_harness_mcp": frozenset({
        "McpServerLaunch", "codex_mcp_servers", "claude_mcp_config", "acp_mcp_servers",
    }),
    "testing": frozenset({
        "attempt_params", "declared_route", "RecordingMirror", "StaticToolPolicy",
        "register_plugin", "RegisteredPlugin", "check_harness_contract",
        "check_attempt_result", "ContractReport", "HarnessContractSuite",
    }),
}

#: the host's own values and functions the SDK publishes as its contract, by where they
#: live; everything else an SDK module exports is defined in `clawharness.plugin_sdk`
OWNED_FROM_THE_HOST: dict[str, str] = {
    "clawharness._json": "open JSON types",
    "clawharness.errors": "the one error tree (a harness raises and catches these)",
    "clawharness.limits": "the host's input limits",
    "clawharness.harness.types": "the harness contract's records, shared with the host",
    "clawharness.harness.tool_spec": "the host tools an attempt offers",
    "clawharness.harness.messages": "the transcript's message shape",
    "clawharness.harness.mcp_servers": "MCP servers as the host configured them",
    "clawharness.plugins.entry": "the plugin registration API",
    "clawharness.sessions.bindings": "the native session binding library the host resets",
    "clawharness.sessions.lifecycle": "the host's session hook parameters",
    "clawharness.store": "the host's store a binding lifecycle lives on",
    "clawharness.harness.workspace": "the host's workspace path rule",
    "clawharness.harness.portable": "the portable-session contract the host drives",
    "clawharness.observability": "the host's tracer and meter",
}

#: at most this many public names in all; growing past it needs a reason in review
#: (100 -> 110: portable sessions are a capability of their own, adopt and handoff, and a
#: harness needs their request and result records and their three errors to offer it;
#: 110 -> 112: a CLI agent offered the host's tools needs the channel it declares them on
#: and the event its mapper turns the CLI's in-process MCP requests into)
MAX_NAMES = 112

#: what the SDK once leaked and must not again
INTERNALS = {"Row", "Commit", "Rollback", "JOURNAL_SUFFIX", "CODEX_LEASE_TIMINGS",
             "HarnessRegistry", "RegisteredHarness", "canonical_json", "fingerprint",
             "DeletionJournal", "PluginStateNamespace", "TOOL_GROUPS", "ToolTerminalObserver",
             "normalize_attempt_terminal", "build_agent_runtime_plan", "tool_observation",
             "report_tool_terminal", "AgentHarness", "AgentHarnessAttemptParams"}


def module(name: str) -> ModuleType:
    return importlib.import_module(f"clawharness.plugin_sdk.{name}")


def exported(name: str) -> set[str]:
    names = list(module(name).__all__)
    assert len(names) == len(set(names)), f"{name}.__all__ repeats a name"
    return set(names)


def test_the_sdk_has_at_most_a_hundred_names() -> None:
    assert sum(len(names) for names in SURFACE.values()) <= MAX_NAMES


@pytest.mark.parametrize("name", sorted(SURFACE))
def test_each_module_exports_exactly_the_designed_names(name: str) -> None:
    assert exported(name) == SURFACE[name]
    assert not exported(name) & INTERNALS


@pytest.mark.parametrize("name", sorted(SURFACE))
def test_nothing_public_is_left_out_of_all(name: str) -> None:
    face = module(name)  # dir() also lists what a lazy face loads on first use
    public = {attr for attr in dir(face)
              if not attr.startswith("_") and attr != "annotations"
              and not inspect.ismodule(getattr(face, attr))}
    assert public == exported(name)


def test_the_package_lists_every_sdk_module() -> None:
    assert set(sdk.__all__) == set(SURFACE)
    for name in SURFACE:
        assert f"`clawharness.plugin_sdk.{name}`" in (sdk.__doc__ or "")


@pytest.mark.parametrize("name", sorted(SURFACE))
def test_every_exported_name_is_documented_in_its_module(name: str) -> None:
    doc = module(name).__doc__ or ""
    undocumented = sorted(n for n in exported(name) if f"`{n}" not in doc)
    assert undocumented == []


@pytest.mark.parametrize("name", sorted(SURFACE))
def test_every_exported_class_and_function_has_a_docstring(name: str) -> None:
    missing = []
    for attr in sorted(exported(name)):
        value = getattr(module(name), attr)
        if (inspect.isclass(value) or inspect.isfunction(value)) and not inspect.getdoc(value):
            missing.append(attr)
    assert missing == []


@pytest.mark.parametrize("name", sorted(SURFACE))
def test_every_name_is_the_sdks_own_or_deliberately_owned(name: str) -> None:
    strays = []
    for attr in sorted(exported(name)):
        value = getattr(module(name), attr)
        home = getattr(value, "__module__", None)
        if not isinstance(home, str) or home in ("typing", "types", "builtins", "collections.abc"):
            continue  # an alias, a union or a constant: documented in the module
        if home.startswith("clawharness.plugin_sdk"):
            continue
        if not any(home == owned or home.startswith(owned + ".")
                   for owned in OWNED_FROM_THE_HOST):
            strays.append(f"{attr} ({home})")
    assert strays == []


def test_exported_classes_and_functions_resolve_their_type_hints() -> None:
    for name in SURFACE:
        for attr in sorted(exported(name)):
            value = getattr(module(name), attr)
            if inspect.isclass(value) or inspect.isfunction(value):
                typing.get_type_hints(value)  # raises NameError on a dangling annotation


def test_unknown_internal_and_retired_names_raise_attribute_error() -> None:
    for name in SURFACE:
        for missing in ("NoSuchThing", "Row", "JOURNAL_SUFFIX", "CODEX_LEASE_TIMINGS",
                        "AgentHarness", "tool_observation", "sanitize_tool_args"):
            with pytest.raises(AttributeError):
                getattr(module(name), missing)


def test_plugin_api_shows_what_a_plugin_may_use() -> None:
    listed = set(dir(PluginApi))
    assert {"id", "store", "config", "state_dir", "logger", "harness_ids",
            "register_agent_harness", "register_provider", "session_bindings",
            "register_session_bindings", "on_agent_end",
            "register_agent_tool_result_middleware"} <= listed
    assert PluginApi.store.__doc__ and "host's store" in PluginApi.store.__doc__


def test_importing_the_sdk_loads_none_of_the_hosts_turn_machinery() -> None:
    code = (
        "import sys\n"
        + "".join(f"import clawharness.plugin_sdk.{name}\n" for name in sorted(SURFACE))
        + "mods = ['clawharness.attempt.turn', 'clawharness.host', 'clawharness.gateway', "
        "'clawharness.cluster', 'clawharness.mcp.manager']\n"
        "print(','.join(m for m in mods if m in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""
