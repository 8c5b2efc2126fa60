"""Conformance fragment, group A: tool helpers.

Maps the original's export names to the Python implementations, adapting only the
calling convention (positional JS-shaped arguments, `undefined` results).
"""

from __future__ import annotations

from typing import Any

from clawharness._jsvalue import UNDEFINED, JsError
from clawharness.tools._js import is_js_object, js_get
from clawharness.tools.groups import expand_tool_groups
from clawharness.tools.mcp_names import assign_mcp_catalog_safe_server_names
from clawharness.tools.meta import infer_tool_meta_from_args
from clawharness.tools.replay import is_agent_tool_replay_safe, is_replay_safe_tool_call
from clawharness.tools.results import (
    TOOL_PROGRESS_OUTPUT_MAX_CHARS,
    extract_tool_error_message,
    format_tool_progress_output,
    is_tool_result_error,
)
from clawharness.tools.sandbox import split_sandbox_bind_spec
from clawharness.tools.sanitize import sanitize_tool_args, sanitize_tool_result

__all__ = ["FUNCTIONS"]


def _undefined_if_none(value: Any) -> Any:
    return UNDEFINED if value is None else value


def _infer_tool_meta_from_args(
    tool_name: Any, args: Any = UNDEFINED, options: Any = UNDEFINED
) -> Any:
    detail_mode = js_get(options, "detailMode") if is_js_object(options) else UNDEFINED
    # The recorder's home directory was an empty temporary folder, so no path shortening.
    return _undefined_if_none(
        infer_tool_meta_from_args(tool_name, args, detail_mode=detail_mode, home_dir=None)
    )


def _format_tool_progress_output(output: Any, options: Any = UNDEFINED) -> Any:
    return _undefined_if_none(format_tool_progress_output(output, options))


def _extract_tool_error_message(result: Any = UNDEFINED) -> Any:
    return _undefined_if_none(extract_tool_error_message(result))


def _is_agent_tool_replay_safe(tool: Any, options: Any = UNDEFINED) -> bool:
    declared = js_get(options, "declaredReplaySafe") if is_js_object(options) else UNDEFINED
    return is_agent_tool_replay_safe(tool, declared if callable(declared) else None)


def _expand_tool_groups(names: Any = UNDEFINED) -> list[str]:
    if names is None or names is UNDEFINED or names == "" or names is False:
        return []
    if not isinstance(names, list):
        raise JsError("TypeError", "list.map is not a function")
    return expand_tool_groups(names)


def _split_sandbox_bind_spec(spec: Any, options: Any = UNDEFINED) -> Any:
    allow = js_get(options, "allowWindowsContainerPath") is True if is_js_object(options) else False
    return split_sandbox_bind_spec(spec, allow_windows_container_path=allow)


FUNCTIONS: dict[str, Any] = {
    "inferToolMetaFromArgs": _infer_tool_meta_from_args,
    "sanitizeToolArgs": sanitize_tool_args,
    "sanitizeToolResult": sanitize_tool_result,
    "extractToolErrorMessage": _extract_tool_error_message,
    "formatToolProgressOutput": _format_tool_progress_output,
    "TOOL_PROGRESS_OUTPUT_MAX_CHARS": TOOL_PROGRESS_OUTPUT_MAX_CHARS,
    "isToolResultError": is_tool_result_error,
    "isAgentToolReplaySafe": _is_agent_tool_replay_safe,
    "isReplaySafeToolCall": is_replay_safe_tool_call,
    "toolPolicy": {"expandToolGroups": _expand_tool_groups},
    "splitSandboxBindSpec": _split_sandbox_bind_spec,
    "assignMcpCatalogSafeServerNames": assign_mcp_catalog_safe_server_names,
}
