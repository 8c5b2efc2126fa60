"""The host's own tools: `read`, `write`, `edit`, `apply_patch`, `exec`, `ls`, `web_fetch`.

Each tool's `execute(args, ctx)` returns `{"content": [{"type": "text", "text"}],
"details": {...}}` (with `"isError": True` when it reports a failure, such as a non-zero
exit code) and raises a `ToolError` for calls it cannot carry out.
"""

from __future__ import annotations

from clawharness.config.schema import ToolsConfig
from clawharness.harness.tool_spec import ToolSpec
from clawharness.tools.builtin.exec import exec_tool
from clawharness.tools.builtin.fs import edit_tool, ls_tool, read_tool, write_tool
from clawharness.tools.builtin.patch import apply_patch_tool
from clawharness.tools.builtin.web import web_fetch_tool

__all__ = [
    "CORE_TOOL_NAMES",
    "apply_patch_tool",
    "core_tool_specs",
    "edit_tool",
    "exec_tool",
    "ls_tool",
    "read_tool",
    "web_fetch_tool",
    "write_tool",
]

#: every core tool this host can offer (web_fetch only when enabled:
#: `clawharness.names.tool_profiles.OFF_BY_DEFAULT`)
CORE_TOOL_NAMES = ("read", "write", "edit", "apply_patch", "exec", "ls", "web_fetch")


def core_tool_specs(tools_config: ToolsConfig | None = None) -> list[ToolSpec]:
    """The core tools as configured (exec timeout and output cap; web_fetch when enabled).

    Policy is not applied here: the attempt's `HostCapabilities.bind_tool_surface` does that.
    """
    config = tools_config or ToolsConfig()
    specs = [
        read_tool(),
        write_tool(),
        edit_tool(),
        apply_patch_tool(),
        exec_tool(
            timeout_sec=config.exec.timeout_sec,
            max_output_chars=config.exec.max_output_chars,
        ),
        ls_tool(),
    ]
    if config.web.fetch.enabled:
        specs.append(web_fetch_tool())
    return specs
