"""File tools confined to the workspace: `read`, `write`, `edit` and `ls`.

Every path is walked by descriptor from the workspace root (`confined.resolve`): no
check-then-use race, symlinks followed only while they stay inside. Only regular files
are read or written: a FIFO, a socket or a device is refused at once (never opened, so
never waited on); a file with a second name (a hard link) is never written in place.

`read` streams: it keeps the lines it shows and counts the rest, and looks no further
than `READ_SCAN_BYTES` into a file, so a huge file (or one huge line) costs a bounded
amount of memory and time. File work runs in a worker thread so a large file never
stalls the event loop; `read` of a small file is done on the loop, where the thread hop
would cost more than the read. The `read` tool lives in `_fs_read`, what the tools
share in `_fs_common`; this module is their public face.

A file system error is the model's to read, as a `ToolError` naming the path and what
went wrong (a symlink loop, a permission); `ls` lists what it can and marks an entry it
cannot read instead of failing the whole listing.
"""

from __future__ import annotations

import asyncio
import os
import stat
from collections.abc import Mapping
from typing import Any

from clawharness.errors import ToolError
from clawharness.harness.tool_spec import ToolCallContext, ToolSpec
from clawharness.tools.builtin._common import optional_int, require_str, text_result
from clawharness.tools.builtin._fs_common import SNIFF_BYTES, is_binary, problem, shown_path
from clawharness.tools.builtin._fs_read import (
    READ_INLINE_BYTES,
    READ_MAX_CHARS,
    READ_MAX_LINES,
    READ_SCAN_BYTES,
    read_tool,
    read_window,
)
from clawharness.tools.builtin.confined import (
    describe_kind,
    open_directory,
    open_regular,
    resolve,
)

__all__ = [
    "EDIT_MAX_BYTES",
    "READ_INLINE_BYTES",
    "READ_MAX_CHARS",
    "READ_MAX_LINES",
    "READ_SCAN_BYTES",
    "edit_result",
    "edit_tool",
    "ls_tool",
    "read_file_bytes",
    "read_tool",
    "read_window",
    "replace_once",
    "shown_path",
    "write_file",
    "write_result",
    "write_tool",
]

LS_DEFAULT_LIMIT = 500
#: the largest file `edit` and `apply_patch` load whole
EDIT_MAX_BYTES = 32 * 1024 * 1024


def read_file_bytes(workspace: str, raw_path: str) -> tuple[bytes, str]:
    """(content, path shown) of a regular file in the workspace, whole, for tools that
    rewrite it (`edit`, `apply_patch`); `ToolError` saying why not (missing, a
    directory, a special file, over `EDIT_MAX_BYTES`, an OS error)."""
    shown = shown_path(workspace, raw_path)
    try:
        with resolve(workspace, raw_path) as found:
            shown = found.shown
            fd, _ = open_regular(found, os.O_RDONLY)
    except (FileNotFoundError, NotADirectoryError):
        raise ToolError(f"file not found: {shown}") from None
    except IsADirectoryError:
        raise ToolError(f"{shown} is a directory, not a file") from None
    except ToolError:
        raise
    except OSError as exc:
        raise ToolError(f"cannot read {shown}: {problem(exc)}") from exc
    with os.fdopen(fd, "rb") as f:
        size = os.fstat(f.fileno()).st_size
        if size > EDIT_MAX_BYTES:
            raise ToolError(f"{shown} is {size} bytes, more than the {EDIT_MAX_BYTES} this "
                            "tool loads whole; change it with exec instead")
        try:
            data = f.read(EDIT_MAX_BYTES + 1)
        except OSError as exc:
            raise ToolError(f"cannot read {shown}: {problem(exc)}") from exc
    return data, shown


# --- write ----------------------------------------------------------------------------


def write_file(workspace: str, raw_path: str, data: bytes) -> tuple[str, bool]:
    """Create or overwrite a regular file in the workspace (parents made): (shown,
    created). `ToolError` for a directory, a special file, a hard-linked file, an OS
    error."""
    shown = shown_path(workspace, raw_path)
    try:
        with resolve(workspace, raw_path, make_parents=True) as found:
            shown = found.shown
            fd, created = open_regular(found, os.O_WRONLY, writing=True, create=True)
            with os.fdopen(fd, "wb") as f:
                if not created:
                    f.truncate(0)
                f.write(data)
    except IsADirectoryError:
        raise ToolError(f"{shown} is a directory") from None
    except ToolError:
        raise
    except OSError as exc:
        raise ToolError(f"cannot write {shown}: {problem(exc)}") from exc
    return shown, created


def _write(workspace: str, args: Mapping[str, Any]) -> dict[str, Any]:
    raw_path = require_str(args, "path")
    content = require_str(args, "content", allow_empty=True)
    data = content.encode("utf-8")
    shown, created = write_file(workspace, raw_path, data)
    return write_result(shown, len(data), created=created)


def write_result(shown: str, size: int, *, created: bool | None) -> dict[str, Any]:
    """What `write` answers once `size` bytes are written (`created` when known)."""
    details: dict[str, Any] = {"path": shown, "bytes": size}
    if created is not None:
        details["created"] = created
    return text_result(f"Successfully wrote {size} bytes to {shown}", **details)


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
    shown = shown_path(workspace, raw_path)
    try:
        with resolve(workspace, raw_path) as found:
            shown = found.shown
            # one descriptor, checked once, read and then written: nothing can be swapped
            # in between
            fd, _ = open_regular(found, os.O_RDWR, writing=True)
    except (FileNotFoundError, NotADirectoryError):
        raise ToolError(f"file not found: {shown}") from None
    except IsADirectoryError:
        raise ToolError(f"{shown} is a directory, not a file") from None
    except ToolError:
        raise
    except OSError as exc:
        raise ToolError(f"cannot read {shown}: {problem(exc)}") from exc
    with os.fdopen(fd, "r+b") as f:
        size = os.fstat(f.fileno()).st_size
        if size > EDIT_MAX_BYTES:
            raise ToolError(f"{shown} is {size} bytes, more than the {EDIT_MAX_BYTES} edit "
                            "loads whole; change it with exec instead")
        data = f.read()
        if is_binary(data[:SNIFF_BYTES]):
            raise ToolError(f"{shown} is a binary file ({len(data)} bytes); edit changes "
                            "text only")
        text = data.decode("utf-8", errors="replace")
        updated, first_line = replace_once(text, old, new, shown)
        try:
            f.seek(0)
            f.truncate(0)
            f.write(updated.encode("utf-8"))
        except OSError as exc:
            raise ToolError(f"cannot write {shown}: {problem(exc)}") from exc
    return edit_result(shown, first_line)


def replace_once(text: str, old: str, new: str, shown: str) -> tuple[str, int]:
    """`text` with `old` replaced by `new`, and the (1-based) line the change starts on;
    `ToolError` unless `old` occurs exactly once (`edit`, wherever the file lives)."""
    count = text.count(old)
    if count == 0:
        raise ToolError(
            f"oldText was not found in {shown}; it must match the file exactly, "
            "including whitespace and indentation"
        )
    if count > 1:
        raise ToolError(
            f"oldText occurs {count} times in {shown}; include more surrounding context "
            "so it matches exactly once"
        )
    index = text.index(old)
    return text[:index] + new + text[index + len(old):], text.count("\n", 0, index) + 1


def edit_result(shown: str, first_line: int) -> dict[str, Any]:
    """What `edit` answers once the file changed."""
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
    shown = shown_path(workspace, raw_path)
    names: list[str] = []
    unreadable = 0
    try:
        with resolve(workspace, raw_path) as found:
            shown = found.shown
            fd = open_directory(found)
        try:
            with os.scandir(fd) as entries:
                for entry in entries:
                    label, readable = _entry_label(entry, fd)
                    names.append(label)
                    unreadable += not readable
        finally:
            os.close(fd)
    except FileNotFoundError:
        raise ToolError(f"directory not found: {shown}") from None
    except NotADirectoryError:
        raise ToolError(f"{shown} is not a directory") from None
    except OSError as exc:
        raise ToolError(f"cannot list {shown}: {problem(exc)}") from exc
    names.sort(key=str.lower)
    total = len(names)
    shown_names = names[:limit]
    text = "\n".join(shown_names) if shown_names else "(empty directory)"
    if total > limit:
        text += f"\n\n[{total - limit} more entries not shown; raise limit to see them.]"
    return text_result(text, path=shown, entries=total, truncated=total > limit,
                       unreadable=unreadable)


def _entry_label(entry: os.DirEntry[str], dir_fd: int) -> tuple[str, bool]:
    """How `ls` shows one entry (directories end with `/`, special files say what they
    are), and whether it could be read.

    `is_dir()` follows a symlink, so a link into a loop, or to nothing, is told apart
    here instead of failing the listing.
    """
    try:
        if entry.is_dir():
            return entry.name + "/", True
    except OSError as exc:
        return f"{entry.name}  [unreadable: {problem(exc)}]", False
    try:
        if entry.is_symlink():
            try:
                os.stat(entry.name, dir_fd=dir_fd)
            except FileNotFoundError:
                return f"{entry.name}  [broken symbolic link]", False
            return entry.name, True
        mode = entry.stat(follow_symlinks=False).st_mode
    except OSError as exc:
        return f"{entry.name}  [unreadable: {problem(exc)}]", False
    if not stat.S_ISREG(mode):
        return f"{entry.name}  [{describe_kind(mode).removeprefix('a ')}]", True
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
