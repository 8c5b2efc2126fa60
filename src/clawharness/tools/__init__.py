"""Tools: policy, approvals, the host's built-in tools, and the helpers around tool calls.

Tool policy (groups, profiles, allow/deny, exec allowlists), approvals, tool-result
classification and sanitizing, replay safety, result middleware, MCP server names and
catalogs, and the compact tool surface for native harnesses. Secret redaction lives in
`clawharness.redaction`; how a tool call is shown to people, in `clawharness.tool_display`.

"""

from __future__ import annotations

from typing import TYPE_CHECKING

from clawharness._faces import lazy_face

if TYPE_CHECKING:
    from clawharness.tools.agent_tools import AgentTools
    from clawharness.tools.approvals import (
        TerminalApprovalGate,
        approval_answer,
        describe_request,
        visible,
    )
    from clawharness.tools.backends import CommandOutcome, CommandRunner, FileAccess, ToolBackends
    from clawharness.tools.builtin import core_tool_specs
    from clawharness.tools.builtin.delegated import delegate_tools
    from clawharness.tools.middleware import (
        ToolResultMiddlewareRegistration,
        apply_tool_result_middleware,
    )
    from clawharness.tools.outcomes import ToolOutcomeLedger
    from clawharness.tools.policy import TOOL_PROFILES, EffectiveToolPolicy
    from clawharness.tools.redacting import redacting_tool
    from clawharness.tools.replay import (
        is_agent_tool_replay_safe,
        is_mutating_tool_call,
        is_plain_read_only_shell_command,
        is_replay_safe_tool_call,
    )
    from clawharness.tools.restriction import (
        RestrictedToolPolicy,
        ToolRestriction,
        restricted_policy,
    )
    from clawharness.tools.results import (
        TOOL_PROGRESS_OUTPUT_MAX_CHARS,
        extract_tool_error_message,
        format_tool_progress_output,
        is_tool_result_error,
    )
    from clawharness.tools.sandbox import (
        SandboxExplanation,
        SandboxService,
        explain_sandbox,
        sandbox_findings,
        status_lines,
    )
    from clawharness.tools.sandbox.hostfacts import agent_workspace_dir
    from clawharness.tools.sandbox.settings import sandboxed_agents
    from clawharness.tools.sanitize import sanitize_tool_args, sanitize_tool_result
    from clawharness.tools.shell_scan import (
        has_shell_compound_command,
        scan_top_level_chars,
        split_top_level_pipes,
        split_top_level_stages,
        strip_shell_preamble,
    )
    from clawharness.tools.shell_words import (
        binary_name,
        first_positional,
        option_value,
        parse_shell_options,
        parse_shell_words,
        positional_args,
        strip_outer_quotes,
        trim_leading_env,
        unwrap_shell_wrapper,
    )
    from clawharness.tools.surface import filter_runtime_compatible_tools

__all__ = [
    "TOOL_PROFILES",
    "TOOL_PROGRESS_OUTPUT_MAX_CHARS",
    "AgentTools",
    "CommandOutcome",
    "CommandRunner",
    "EffectiveToolPolicy",
    "FileAccess",
    "RestrictedToolPolicy",
    "SandboxExplanation",
    "SandboxService",
    "TerminalApprovalGate",
    "ToolBackends",
    "ToolOutcomeLedger",
    "ToolRestriction",
    "ToolResultMiddlewareRegistration",
    "agent_workspace_dir",
    "apply_tool_result_middleware",
    "approval_answer",
    "binary_name",
    "core_tool_specs",
    "delegate_tools",
    "describe_request",
    "explain_sandbox",
    "extract_tool_error_message",
    "filter_runtime_compatible_tools",
    "first_positional",
    "format_tool_progress_output",
    "has_shell_compound_command",
    "is_agent_tool_replay_safe",
    "is_mutating_tool_call",
    "is_plain_read_only_shell_command",
    "is_replay_safe_tool_call",
    "is_tool_result_error",
    "option_value",
    "parse_shell_options",
    "parse_shell_words",
    "positional_args",
    "redacting_tool",
    "restricted_policy",
    "sandbox_findings",
    "sandboxed_agents",
    "sanitize_tool_args",
    "sanitize_tool_result",
    "scan_top_level_chars",
    "split_top_level_pipes",
    "split_top_level_stages",
    "status_lines",
    "strip_outer_quotes",
    "strip_shell_preamble",
    "trim_leading_env",
    "unwrap_shell_wrapper",
    "visible",
]

__getattr__, __dir__ = lazy_face(__name__, {
    "AgentTools": "clawharness.tools.agent_tools",
    "EffectiveToolPolicy": "clawharness.tools.policy",
    "SandboxExplanation": "clawharness.tools.sandbox",
    "SandboxService": "clawharness.tools.sandbox",
    "TOOL_PROFILES": "clawharness.tools.policy",
    "TOOL_PROGRESS_OUTPUT_MAX_CHARS": "clawharness.tools.results",
    "TerminalApprovalGate": "clawharness.tools.approvals",
    "ToolOutcomeLedger": "clawharness.tools.outcomes",
    "ToolResultMiddlewareRegistration": "clawharness.tools.middleware",
    "apply_tool_result_middleware": "clawharness.tools.middleware",
    "approval_answer": "clawharness.tools.approvals",
    "binary_name": "clawharness.tools.shell_words",
    "core_tool_specs": "clawharness.tools.builtin",
    "describe_request": "clawharness.tools.approvals",
    "explain_sandbox": "clawharness.tools.sandbox",
    "extract_tool_error_message": "clawharness.tools.results",
    "filter_runtime_compatible_tools": "clawharness.tools.surface",
    "first_positional": "clawharness.tools.shell_words",
    "format_tool_progress_output": "clawharness.tools.results",
    "has_shell_compound_command": "clawharness.tools.shell_scan",
    "is_agent_tool_replay_safe": "clawharness.tools.replay",
    "is_mutating_tool_call": "clawharness.tools.replay",
    "is_plain_read_only_shell_command": "clawharness.tools.replay",
    "is_replay_safe_tool_call": "clawharness.tools.replay",
    "is_tool_result_error": "clawharness.tools.results",
    "option_value": "clawharness.tools.shell_words",
    "parse_shell_options": "clawharness.tools.shell_words",
    "parse_shell_words": "clawharness.tools.shell_words",
    "positional_args": "clawharness.tools.shell_words",
    "redacting_tool": "clawharness.tools.redacting",
    "sandbox_findings": "clawharness.tools.sandbox",
    "sandboxed_agents": "clawharness.tools.sandbox.settings",
    "sanitize_tool_args": "clawharness.tools.sanitize",
    "sanitize_tool_result": "clawharness.tools.sanitize",
    "scan_top_level_chars": "clawharness.tools.shell_scan",
    "split_top_level_pipes": "clawharness.tools.shell_scan",
    "split_top_level_stages": "clawharness.tools.shell_scan",
    "status_lines": "clawharness.tools.sandbox",
    "strip_outer_quotes": "clawharness.tools.shell_words",
    "strip_shell_preamble": "clawharness.tools.shell_scan",
    "trim_leading_env": "clawharness.tools.shell_words",
    "unwrap_shell_wrapper": "clawharness.tools.shell_words",
    "visible": "clawharness.tools.approvals",
    "CommandOutcome": "clawharness.tools.backends",
    "CommandRunner": "clawharness.tools.backends",
    "FileAccess": "clawharness.tools.backends",
    "ToolBackends": "clawharness.tools.backends",
    "delegate_tools": "clawharness.tools.builtin.delegated",
    "RestrictedToolPolicy": "clawharness.tools.restriction",
    "ToolRestriction": "clawharness.tools.restriction",
    "restricted_policy": "clawharness.tools.restriction",
    "agent_workspace_dir": "clawharness.tools.sandbox.hostfacts",
})
