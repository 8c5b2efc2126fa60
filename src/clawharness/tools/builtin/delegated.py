"""The host tools `read`, `write`, `edit` and `exec` working through a front's backends
(`clawharness.tools.backends`): an editor's files and terminals instead of this host's.

Each tool keeps its arguments, its checks and its answers; only where the bytes come
from and go to changes. A path is resolved inside the turn's workspace first (a path
that leaves it is refused, as it is here), and the backend gets it absolute.

A call falls back to the host's own tool (the spec it wraps) where the session's sandbox
applies: a command the sandbox must contain never runs in a client's terminal, and file
tools of a sandbox with a workspace of its own (`workspaceAccess: "none"`) or a
read-only one stay with the host (which refuses the writes). `ls` and `apply_patch` are
not delegated (ACP has no way to list a directory or delete a file): they always work
on this host's file system.
"""

from __future__ import annotations

import asyncio
import dataclasses
import os
from collections.abc import Mapping, Sequence
from typing import Any

from clawharness.config.schema import ToolsConfig
from clawharness.errors import ToolError
from clawharness.harness import ToolCallContext, ToolExecute, ToolSpec
from clawharness.harness.workspace import display_path, resolve_workspace_path
from clawharness.tools.backends import CommandRunner, FileAccess, ToolBackends
from clawharness.tools.builtin._common import ToolInputError, optional_int, require_str
from clawharness.tools.builtin.exec import command_timeout, command_workdir, exec_result
from clawharness.tools.builtin.fs import (
    READ_MAX_LINES,
    edit_result,
    read_window,
    replace_once,
    write_result,
)
from clawharness.tools.sandbox.runner import AgentSandbox

__all__ = ["DELEGATED_TOOL_NAMES", "delegate_tools"]

#: the host tools a front's backends can take over
DELEGATED_TOOL_NAMES = frozenset({"read", "write", "edit", "exec"})
_WRITING = frozenset({"write", "edit"})


def _file_target(ctx: ToolCallContext, raw_path: str) -> tuple[str, str]:
    """(absolute path, path shown to the model) of `raw_path` in the workspace."""
    real = resolve_workspace_path(ctx.workspace_dir, raw_path)
    return str(real), display_path(ctx.workspace_dir, real)


def _files_here(sandbox: AgentSandbox | None, ctx: ToolCallContext, writing: bool) -> bool:
    """Whether this call must stay with the host's own file tool (its sandbox says so)."""
    if sandbox is None:
        return False
    where = sandbox.file_workspace(ctx.session_key, ctx.workspace_dir, create=False)
    return where.path != ctx.workspace_dir or (writing and where.read_only)


async def _commands_here(sandbox: AgentSandbox | None, ctx: ToolCallContext) -> bool:
    """Whether this command must stay with the host: its sandbox contains it (or refuses
    it, which the host's own `exec` says)."""
    if sandbox is None:
        return False
    decision = await asyncio.to_thread(sandbox.decision, ctx.session_key)
    return decision.sandboxed or decision.refusal is not None


def _read(files: FileAccess) -> ToolExecute:
    async def execute(args: Mapping[str, Any], ctx: ToolCallContext) -> dict[str, Any]:
        raw_path = require_str(args, "path")
        offset = optional_int(args, "offset", minimum=1, default=1) or 1
        limit = optional_int(args, "limit", minimum=1, default=READ_MAX_LINES) or READ_MAX_LINES
        path, shown = _file_target(ctx, raw_path)
        text = await files.read_text(path, ctx)
        return read_window(text, shown, offset, limit)

    return execute


def _write(files: FileAccess) -> ToolExecute:
    async def execute(args: Mapping[str, Any], ctx: ToolCallContext) -> dict[str, Any]:
        raw_path = require_str(args, "path")
        content = require_str(args, "content", allow_empty=True)
        path, shown = _file_target(ctx, raw_path)
        if os.path.isdir(path):
            raise ToolError(f"{shown} is a directory")
        await files.write_text(path, content, ctx)
        return write_result(shown, len(content.encode("utf-8")), created=None)

    return execute


def _edit(files: FileAccess) -> ToolExecute:
    async def execute(args: Mapping[str, Any], ctx: ToolCallContext) -> dict[str, Any]:
        raw_path = require_str(args, "path")
        old = require_str(args, "oldText")
        new = require_str(args, "newText", allow_empty=True)
        path, shown = _file_target(ctx, raw_path)
        text = await files.read_text(path, ctx)
        updated, first_line = replace_once(text, old, new, shown)
        await files.write_text(path, updated, ctx)
        return edit_result(shown, first_line)

    return execute


def _exec(commands: CommandRunner, config: ToolsConfig) -> ToolExecute:
    timeout_sec = config.exec.timeout_sec
    max_output_chars = config.exec.max_output_chars

    async def execute(args: Mapping[str, Any], ctx: ToolCallContext) -> dict[str, Any]:
        command = require_str(args, "command")
        if not command.strip():
            raise ToolInputError("argument 'command' must not be blank")
        cwd = command_workdir(ctx.workspace_dir, args.get("workdir"))
        limit = command_timeout(args, timeout_sec)
        run_dir = str(cwd) if cwd is not None else os.path.realpath(ctx.workspace_dir)
        outcome = await commands.run(command, cwd=run_dir, timeout_sec=limit,
                                     max_output_chars=max_output_chars, context=ctx)
        output = outcome.output
        truncated = outcome.truncated or len(output) > max_output_chars
        if len(output) > max_output_chars:
            output = output[-max_output_chars:]
        details: dict[str, Any] = {"ranIn": "client-terminal"}
        if outcome.signal is not None:
            details["signal"] = outcome.signal
        return exec_result(
            output, exit_code=outcome.exit_code, timed_out=outcome.timed_out,
            truncated=truncated, limit=limit, max_output_chars=max_output_chars,
            cwd=display_path(ctx.workspace_dir, cwd) if cwd is not None else ".", **details)

    return execute


def _delegating(spec: ToolSpec, there: ToolExecute, sandbox: AgentSandbox | None) -> ToolSpec:
    """`spec` running `there` (through the backends) unless its sandbox keeps the call
    with the host's own implementation."""
    here = spec.execute
    name = spec.name

    async def execute(args: Mapping[str, Any], ctx: ToolCallContext) -> dict[str, Any]:
        if name == "exec":
            stay = await _commands_here(sandbox, ctx)
        else:
            stay = _files_here(sandbox, ctx, name in _WRITING)
        return await (here if stay else there)(args, ctx)

    return dataclasses.replace(spec, execute=execute)


def delegate_tools(specs: Sequence[ToolSpec], backends: ToolBackends,
                   sandbox: AgentSandbox | None,
                   config: ToolsConfig | None = None) -> tuple[ToolSpec, ...]:
    """`specs` with the core `read`/`write`/`edit` going through `backends.files` and
    `exec` through `backends.commands` (where given); other tools, and tools of the same
    names a plugin owns or the caller runs, unchanged."""
    config = config or ToolsConfig()
    out: list[ToolSpec] = []
    for spec in specs:
        there: ToolExecute | None = None
        if spec.owner is not None or spec.executed_by_caller:
            out.append(spec)  # a plugin's tool, or one the HTTP caller runs: not ours
            continue
        if backends.files is not None:
            if spec.name == "read":
                there = _read(backends.files)
            elif spec.name == "write":
                there = _write(backends.files)
            elif spec.name == "edit":
                there = _edit(backends.files)
        if spec.name == "exec" and backends.commands is not None:
            there = _exec(backends.commands, config)
        out.append(spec if there is None else _delegating(spec, there, sandbox))
    return tuple(out)
