"""The host's own tools: `read`, `write`, `edit`, `apply_patch`, `exec`, `ls`, `web_fetch`.

Each tool's `execute(args, ctx)` returns `{"content": [{"type": "text", "text"}],
"details": {...}}` (with `"isError": True` when it reports a failure, such as a non-zero
exit code) and raises a `ToolError` for calls it cannot carry out.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from clawharness.config.schema import ToolsConfig
from clawharness.errors import ToolError
from clawharness.harness.tool_spec import ToolCallContext, ToolSpec
from clawharness.tools.builtin.exec import exec_tool
from clawharness.tools.builtin.fs import edit_tool, ls_tool, read_tool, write_tool
from clawharness.tools.builtin.patch import apply_patch_tool
from clawharness.tools.builtin.web import web_fetch_tool
from clawharness.tools.sandbox.runner import AgentSandbox

__all__ = [
    "CORE_TOOL_NAMES",
    "apply_patch_tool",
    "core_tool_specs",
    "edit_tool",
    "exec_tool",
    "in_sandbox_workspace",
    "ls_tool",
    "read_tool",
    "web_fetch_tool",
    "write_tool",
]

#: every core tool this host can offer (web_fetch only when enabled:
#: `clawharness.names.tool_profiles.OFF_BY_DEFAULT`)
CORE_TOOL_NAMES = ("read", "write", "edit", "apply_patch", "exec", "ls", "web_fetch")

#: file tools that change files: refused where the sandbox shows the workspace read-only
WRITING_FILE_TOOLS = frozenset({"write", "edit", "apply_patch"})
#: file tools that follow the session's sandbox workspace
FILE_TOOLS = frozenset({"read", "write", "edit", "apply_patch", "ls"})


def in_sandbox_workspace(spec: ToolSpec, sandbox: AgentSandbox) -> ToolSpec:
    """`spec` working where the session's sandbox puts it: the sandbox's own workspace
    (`workspaceAccess: "none"`), or refused when it writes and the workspace is read-only
    (`"ro"`); unchanged for sessions the sandbox does not apply to."""

    async def execute(args: Mapping[str, Any], ctx: ToolCallContext) -> dict[str, Any]:
        where = sandbox.file_workspace(ctx.session_key, ctx.workspace_dir)
        if where.read_only and spec.name in WRITING_FILE_TOOLS:
            raise ToolError(f"{spec.name} is refused: this session's sandbox shows the "
                            f'workspace read-only ({where.rule} is "ro")')
        if where.path != ctx.workspace_dir:
            ctx = dataclasses.replace(ctx, workspace_dir=where.path)
        return await spec.execute(args, ctx)

    return dataclasses.replace(spec, execute=execute)


def core_tool_specs(tools_config: ToolsConfig | None = None,
                    sandbox: AgentSandbox | None = None) -> list[ToolSpec]:
    """The core tools as configured (exec timeout and output cap; web_fetch when enabled),
    `exec` in the agent's `sandbox` and the file tools in its workspace where it applies.

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
            sandbox=sandbox,
        ),
        ls_tool(),
    ]
    if sandbox is not None:
        settings = sandbox.settings
        if settings.mode != "off" and settings.workspace_access != "rw":
            specs = [in_sandbox_workspace(s, sandbox) if s.name in FILE_TOOLS else s
                     for s in specs]
    if config.web.fetch.enabled:
        specs.append(web_fetch_tool())
    return specs
