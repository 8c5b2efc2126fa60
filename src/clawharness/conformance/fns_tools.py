"""Conformance fragment, group A: tool helpers.

Maps the original's export names to the core's tool helpers. Each adapter decodes the
vector's JavaScript-shaped arguments into the core's JSON input (`tool_values`), calls
the core, and encodes the result back: `undefined` where the core returns None, a
`Map` for the MCP names, the `{host, container, options}` record for bind specs.
"""

from __future__ import annotations

import math
from typing import Any

from clawharness.conformance.jsrules import is_js_number, is_js_object, js_property
from clawharness.conformance.jsvalue import UNDEFINED, JsError, JsMap
from clawharness.conformance.tool_values import args_view, read_view, result_view
from clawharness.delivery.tool_results import is_tool_result_error
from clawharness.names.bind_specs import split_sandbox_bind_spec
from clawharness.names.mcp_names import assign_mcp_catalog_safe_server_names
from clawharness.names.tool_groups import expand_tool_groups
from clawharness.tool_display import infer_tool_meta_from_args
from clawharness.tools.replay import is_agent_tool_replay_safe, is_replay_safe_tool_call
from clawharness.tools.results import (
    TOOL_PROGRESS_OUTPUT_MAX_CHARS,
    extract_tool_error_message,
    format_tool_progress_output,
)
from clawharness.tools.sanitize import sanitize_tool_args, sanitize_tool_result

__all__ = ["FUNCTIONS"]


def _undefined_if_none(value: Any) -> Any:
    return UNDEFINED if value is None else value


def _option(options: Any, key: str) -> Any:
    return js_property(options, key) if is_js_object(options) else UNDEFINED


# Every adapter takes the arguments as JavaScript passes them: missing ones are
# `undefined` and extra ones are ignored.


def _infer_tool_meta_from_args(
    tool_name: Any = UNDEFINED, args: Any = UNDEFINED, options: Any = UNDEFINED, *_: Any
) -> Any:
    detail_mode = _option(options, "detailMode")
    # The recorder's home directory was an empty temporary folder, so no path shortening.
    return _undefined_if_none(
        infer_tool_meta_from_args(
            tool_name if isinstance(tool_name, str) else None,
            read_view(args),
            detail_mode=detail_mode if isinstance(detail_mode, str) else None,
            home_dir=None,
        )
    )


def _format_tool_progress_output(output: Any = UNDEFINED, options: Any = UNDEFINED, *_: Any) -> Any:
    if not isinstance(output, str):
        raise JsError("TypeError", "output.replace is not a function")
    requested = _option(options, "maxChars")
    if requested is None or requested is UNDEFINED:
        max_chars = None  # the default cap
    elif not is_js_number(requested):
        max_chars = math.inf  # a cap that is not a number caps nothing
    elif math.isnan(requested) or requested < 0:
        max_chars = 0  # `Math.max(0, Math.floor(cap))` keeps nothing
    else:
        max_chars = requested
    return _undefined_if_none(format_tool_progress_output(output, max_chars=max_chars))


def _extract_tool_error_message(result: Any = UNDEFINED, *_: Any) -> Any:
    return _undefined_if_none(extract_tool_error_message(read_view(result)))


def _is_tool_result_error(result: Any = UNDEFINED, *_: Any) -> bool:
    return is_tool_result_error(read_view(result))


def _sanitize_tool_args(args: Any = UNDEFINED, *_: Any) -> Any:
    return sanitize_tool_args(args_view(args))


def _sanitize_tool_result(result: Any = UNDEFINED, *_: Any) -> Any:
    out: Any = sanitize_tool_result(result_view(result))
    content = out.get("content") if isinstance(out, dict) else None
    for block in content if isinstance(content, list) else ():
        # the core says "size unknown" with None; the original leaves `bytes: undefined`
        if (isinstance(block, dict) and block.get("omitted") is True
                and block.get("type") == "image" and "bytes" in block and block["bytes"] is None):
            block["bytes"] = UNDEFINED
    return out


def _is_agent_tool_replay_safe(tool: Any = UNDEFINED, options: Any = UNDEFINED, *_: Any) -> bool:
    declared = _option(options, "declaredReplaySafe")
    return is_agent_tool_replay_safe(read_view(tool), declared if callable(declared) else None)


def _is_replay_safe_tool_call(tool_name: Any = UNDEFINED, args: Any = UNDEFINED, *_: Any) -> bool:
    return is_replay_safe_tool_call(tool_name if isinstance(tool_name, str) else "", read_view(args))


def _expand_tool_groups(names: Any = UNDEFINED, *_: Any) -> list[str]:
    if names is None or names is UNDEFINED or names == "" or names is False:
        return []
    if not isinstance(names, list):
        raise JsError("TypeError", "list.map is not a function")
    return expand_tool_groups(names)


def _split_sandbox_bind_spec(spec: Any = UNDEFINED, options: Any = UNDEFINED, *_: Any) -> Any:
    allow = _option(options, "allowWindowsContainerPath") is True
    parts = split_sandbox_bind_spec(spec, allow_windows_container_path=allow)
    if parts is None:
        return None
    return {"host": parts.host, "container": parts.container, "options": parts.options}


def _assign_mcp_catalog_safe_server_names(names: Any = UNDEFINED, *_: Any) -> JsMap:
    return JsMap(assign_mcp_catalog_safe_server_names(names))


FUNCTIONS: dict[str, Any] = {
    "inferToolMetaFromArgs": _infer_tool_meta_from_args,
    "sanitizeToolArgs": _sanitize_tool_args,
    "sanitizeToolResult": _sanitize_tool_result,
    "extractToolErrorMessage": _extract_tool_error_message,
    "formatToolProgressOutput": _format_tool_progress_output,
    "TOOL_PROGRESS_OUTPUT_MAX_CHARS": TOOL_PROGRESS_OUTPUT_MAX_CHARS,
    "isToolResultError": _is_tool_result_error,
    "isAgentToolReplaySafe": _is_agent_tool_replay_safe,
    "isReplaySafeToolCall": _is_replay_safe_tool_call,
    "toolPolicy": {"expandToolGroups": _expand_tool_groups},
    "splitSandboxBindSpec": _split_sandbox_bind_spec,
    "assignMcpCatalogSafeServerNames": _assign_mcp_catalog_safe_server_names,
}
