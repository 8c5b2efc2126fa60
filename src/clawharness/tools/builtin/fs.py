"""File tools confined to the workspace: `read`, `write`, `edit` and `ls`.

Every path goes through `resolve_workspace_path` (or `open_workspace_file`, which checks
the file it opened). File work runs in a worker thread so a large file never stalls the
event loop; `read` of a small file is done on the loop, where the thread hop would cost
more than the read.

A file system error is the model's to read, as a `ToolError` naming the path and what
went wrong (a symlink loop, a permission); `ls` lists what it can and marks an entry it
cannot read instead of failing the whole listing.
"""

from __future__ import annotations

import asyncio
import errno
import os
import stat
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from clawharness.errors import ToolError
from clawharness.harness.tool_spec import ToolCallContext, ToolSpec
from clawharness.harness.workspace import (
    display_path,
    open_workspace_file,
    resolve_workspace_path,
)
from clawharness.tools.builtin._common import optional_int, require_str, text_result

__all__ = [
    "READ_INLINE_BYTES",
    "READ_MAX_CHARS",
    "READ_MAX_LINES",
    "edit_tool",
    "ls_tool",
    "read_tool",
    "write_tool",
]

READ_MAX_LINES = 2000
READ_MAX_CHARS = 50_000
LS_DEFAULT_LIMIT = 500
#: `read` of a file up to this size runs on the event loop, bigger ones in a thread
READ_INLINE_BYTES = 256 * 1024


def _is_binary(sample: bytes) -> bool:
    return b"\x00" in sample


def _problem(exc: OSError) -> str:
    """What went wrong, in words (the OS's own, or a plainer one for a symlink loop)."""
    if exc.errno == errno.ELOOP:
        return "a symbolic link loop (too many levels of symbolic links)"
    return (exc.strerror or str(exc)).lower()


def _read_text(path: Path, shown: str) -> str:
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise ToolError(f"file not found: {shown}") from None
    except IsADirectoryError:
        raise ToolError(f"{shown} is a directory; use ls to list it") from None
    except OSError as exc:
        raise ToolError(f"cannot read {shown}: {_problem(exc)}") from exc
    if _is_binary(data[:8192]):
        raise ToolError(f"{shown} is a binary file ({len(data)} bytes); read shows text only")
    return data.decode("utf-8", errors="replace")


# --- read -----------------------------------------------------------------------------


def _open_for_read(workspace: str, raw_path: str) -> tuple[int, str, int]:
    """(descriptor, path shown to the model, size) of a regular file in the workspace."""
    try:
        fd, path = open_workspace_file(workspace, raw_path)
    except (FileNotFoundError, NotADirectoryError):
        shown = display_path(workspace, resolve_workspace_path(workspace, raw_path))
        raise ToolError(f"file not found: {shown}") from None
    except OSError as exc:
        raise ToolError(f"cannot read {raw_path}: {_problem(exc)}") from exc
    shown = display_path(workspace, path)
    mode, size = (st := os.fstat(fd)).st_mode, st.st_size
    if not stat.S_ISREG(mode):
        os.close(fd)
        if stat.S_ISDIR(mode):
            raise ToolError(f"{shown} is a directory; use ls to list it")
        raise ToolError(f"{shown} is not a regular file")
    return fd, shown, size


def _read_lines(fd: int, shown: str, offset: int, limit: int) -> dict[str, Any]:
    """Read the whole file behind `fd` (closing it) and show lines offset.. of it."""
    try:
        with os.fdopen(fd, "rb", closefd=True) as f:
            data = f.read()
    except OSError as exc:
        raise ToolError(f"cannot read {shown}: {exc.strerror or exc}") from exc
    if _is_binary(data[:8192]):
        raise ToolError(f"{shown} is a binary file ({len(data)} bytes); read shows text only")
    text = data.decode("utf-8", errors="replace")
    lines = text.split("\n")
    if text.endswith("\n"):
        lines.pop()
    total = len(lines)
    if total and offset > total:
        raise ToolError(f"offset {offset} is past the end of {shown} ({total} lines)")
    start = offset - 1
    end = min(total, start + min(limit, READ_MAX_LINES))
    body = "\n".join(lines[start:end])
    truncated_chars = len(body) > READ_MAX_CHARS
    if truncated_chars:
        body = body[:READ_MAX_CHARS]
        end = start + body.count("\n") + 1
    notes: list[str] = []
    if end < total:
        notes.append(
            f"[Showing lines {start + 1}-{end} of {total}. Use offset={end + 1} to continue.]"
        )
    elif truncated_chars:
        notes.append(f"[Output truncated at {READ_MAX_CHARS} characters.]")
    out = body + ("\n\n" + notes[0] if notes else "")
    return text_result(
        out, path=shown, totalLines=total, startLine=start + 1, endLine=end, truncated=bool(notes)
    )


async def _read_execute(args: Mapping[str, Any], ctx: ToolCallContext) -> dict[str, Any]:
    raw_path = require_str(args, "path")
    offset = optional_int(args, "offset", minimum=1, default=1) or 1
    limit = optional_int(args, "limit", minimum=1, default=READ_MAX_LINES) or READ_MAX_LINES
    fd, shown, size = _open_for_read(ctx.workspace_dir, raw_path)
    if size <= READ_INLINE_BYTES:
        return _read_lines(fd, shown, offset, limit)
    return await asyncio.to_thread(_read_lines, fd, shown, offset, limit)


def read_tool() -> ToolSpec:
    """`read {path, offset?, limit?}`: a text file's lines (1-based offset)."""
    return ToolSpec(
        name="read",
        description=(
            "Read a text file in the workspace. Returns up to 2000 lines; use offset "
            "(1-based line) and limit to page through longer files."
        ),
        parameters={
            "type": "object",
            "properties": {
                "path": {"type": "string", "description": "File path, relative to the workspace"},
                "offset": {"type": "integer", "description": "First line to read (1-based)"},
                "limit": {"type": "integer", "description": "Maximum number of lines"},
            },
            "required": ["path"],
            "additionalProperties": False,
        },
        execute=_read_execute,
    )


# --- write ----------------------------------------------------------------------------


def _write(workspace: str, args: Mapping[str, Any]) -> dict[str, Any]:
    raw_path = require_str(args, "path")
    content = require_str(args, "content", allow_empty=True)
    path = resolve_workspace_path(workspace, raw_path)
    shown = display_path(workspace, path)
    data = content.encode("utf-8")
    try:  # a stat can fail too (a name too long, a parent that is a file)
        if path.is_dir():
            raise ToolError(f"{shown} is a directory")
        existed = path.exists()
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    except OSError as exc:
        raise ToolError(f"cannot write {shown}: {_problem(exc)}") from exc
    return text_result(
        f"Successfully wrote {len(data)} bytes to {shown}",
        path=shown,
        bytes=len(data),
        created=not existed,
    )


async def _write_execute(args: Mapping[str, Any], ctx: ToolCallContext) -> dict[str, Any]:
    return await asyncio.to_thread(_write, ctx.workspace_dir, args)


def write_tool() -> ToolSpec:
    """`write {path, content}`: create or overwrite a file (parents are created)."""
    return ToolSpec(
        name="write",
        description="Create or overwrite a file in the workspace with the given content.",
        parameters={
            "type": "object",
            "properties": {
                "path": {"type": "string", "description": "File path, relative to the workspace"},
                "content": {"type": "string", "description": "The complete new file content"},
            },
            "required": ["path", "content"],
            "additionalProperties": False,
        },
        execute=_write_execute,
    )


# --- edit -----------------------------------------------------------------------------


def _edit(workspace: str, args: Mapping[str, Any]) -> dict[str, Any]:
    raw_path = require_str(args, "path")
    old = require_str(args, "oldText")
    new = require_str(args, "newText", allow_empty=True)
    path = resolve_workspace_path(workspace, raw_path)
    shown = display_path(workspace, path)
    text = _read_text(path, shown)
    count = text.count(old)
    if count == 0:
        raise ToolError(
            f"oldText was not found in {shown}; it must match the file exactly, "
            "including whitespace and indentation"
        )
    if count > 1:
        raise ToolError(
            f"oldText occurs {count} times in {shown}; include more surrounding context so "
            "it matches exactly once"
        )
    index = text.index(old)
    updated = text[:index] + new + text[index + len(old) :]
    try:
        path.write_text(updated, encoding="utf-8")
    except OSError as exc:
        raise ToolError(f"cannot write {shown}: {_problem(exc)}") from exc
    first_line = text.count("\n", 0, index) + 1
    return text_result(
        f"Successfully replaced text in {shown}.", path=shown, firstChangedLine=first_line
    )


async def _edit_execute(args: Mapping[str, Any], ctx: ToolCallContext) -> dict[str, Any]:
    return await asyncio.to_thread(_edit, ctx.workspace_dir, args)


def edit_tool() -> ToolSpec:
    """`edit {path, oldText, newText}`: replace text that occurs exactly once."""
    return ToolSpec(
        name="edit",
        description=(
            "Edit a file by replacing oldText with newText. oldText must match the file "
            "exactly (whitespace included) and occur exactly once."
        ),
        parameters={
            "type": "object",
            "properties": {
                "path": {"type": "string", "description": "File path, relative to the workspace"},
                "oldText": {"type": "string", "description": "Exact text to replace"},
                "newText": {"type": "string", "description": "Replacement text"},
            },
            "required": ["path", "oldText", "newText"],
            "additionalProperties": False,
        },
        execute=_edit_execute,
    )


# --- ls -------------------------------------------------------------------------------


def _ls(workspace: str, args: Mapping[str, Any]) -> dict[str, Any]:
    raw = args.get("path")
    raw_path = raw if isinstance(raw, str) and raw.strip() else "."
    limit = optional_int(args, "limit", minimum=1, default=LS_DEFAULT_LIMIT) or LS_DEFAULT_LIMIT
    path = resolve_workspace_path(workspace, raw_path)
    shown = display_path(workspace, path)
    names: list[str] = []
    unreadable = 0
    try:
        with os.scandir(path) as entries:
            for entry in entries:
                label, readable = _entry_label(entry)
                names.append(label)
                unreadable += not readable
    except FileNotFoundError:
        raise ToolError(f"directory not found: {shown}") from None
    except NotADirectoryError:
        raise ToolError(f"{shown} is not a directory") from None
    except OSError as exc:
        raise ToolError(f"cannot list {shown}: {_problem(exc)}") from exc
    names.sort(key=str.lower)
    total = len(names)
    shown_names = names[:limit]
    text = "\n".join(shown_names) if shown_names else "(empty directory)"
    if total > limit:
        text += f"\n\n[{total - limit} more entries not shown; raise limit to see them.]"
    return text_result(text, path=shown, entries=total, truncated=total > limit,
                       unreadable=unreadable)


def _entry_label(entry: os.DirEntry[str]) -> tuple[str, bool]:
    """How `ls` shows one entry (directories end with `/`), and whether it could be read.

    `is_dir()` follows a symlink, so a link into a loop, or to nothing, is told apart
    here instead of failing the listing.
    """
    try:
        if entry.is_dir():
            return entry.name + "/", True
    except OSError as exc:
        return f"{entry.name}  [unreadable: {_problem(exc)}]", False
    try:
        if entry.is_symlink() and not os.path.exists(entry.path):
            return f"{entry.name}  [broken symbolic link]", False
    except OSError as exc:
        return f"{entry.name}  [unreadable: {_problem(exc)}]", False
    return entry.name, True


async def _ls_execute(args: Mapping[str, Any], ctx: ToolCallContext) -> dict[str, Any]:
    return await asyncio.to_thread(_ls, ctx.workspace_dir, args)


def ls_tool() -> ToolSpec:
    """`ls {path?, limit?}`: a directory's entries, directories marked with `/`."""
    return ToolSpec(
        name="ls",
        description="List a directory in the workspace (directories end with /).",
        parameters={
            "type": "object",
            "properties": {
                "path": {"type": "string", "description": "Directory, relative to the workspace"},
                "limit": {"type": "integer", "description": "Maximum entries (default 500)"},
            },
            "additionalProperties": False,
        },
        execute=_ls_execute,
    )
