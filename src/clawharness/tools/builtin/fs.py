"""File tools confined to the workspace: `read`, `write`, `edit` and `ls`.

Every path is walked by descriptor from the workspace root (`confined.resolve`): no
check-then-use race, symlinks followed only while they stay inside. Only regular files
are read or written: a FIFO, a socket or a device is refused at once (never opened, so
never waited on); a file with a second name (a hard link) is never written in place.

`read` streams: it keeps the lines it shows and counts the rest, and looks no further
than `READ_SCAN_BYTES` into a file, so a huge file (or one huge line) costs a bounded
amount of memory and time. File work runs in a worker thread so a large file never
stalls the event loop; `read` of a small file is done on the loop, where the thread hop
would cost more than the read.

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
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

from clawharness.errors import ToolError
from clawharness.harness.tool_spec import ToolCallContext, ToolSpec
from clawharness.harness.workspace import display_path, lexical_workspace_path
from clawharness.tools.builtin._common import optional_int, require_str, text_result
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

READ_MAX_LINES = 2000
READ_MAX_CHARS = 50_000
LS_DEFAULT_LIMIT = 500
#: `read` of a file up to this size runs on the event loop, bigger ones in a thread
READ_INLINE_BYTES = 256 * 1024
#: how far into a file `read` looks, to reach its offset and count lines after it
READ_SCAN_BYTES = 64 * 1024 * 1024
#: the largest file `edit` and `apply_patch` load whole
EDIT_MAX_BYTES = 32 * 1024 * 1024
#: the bytes of one line `read` keeps (more than `READ_MAX_CHARS` could ever show)
_LINE_BYTES = READ_MAX_CHARS * 4 + 4
_SNIFF_BYTES = 8192


def _is_binary(sample: bytes) -> bool:
    return b"\x00" in sample


def _problem(exc: OSError) -> str:
    """What went wrong, in words (the OS's own, or a plainer one for a symlink loop)."""
    if exc.errno == errno.ELOOP:
        return "a symbolic link loop (too many levels of symbolic links)"
    return (exc.strerror or str(exc)).lower()


def shown_path(workspace: str, raw_path: str) -> str:
    """`raw_path` as the model sees it in messages (relative to the workspace), before it
    is resolved."""
    try:
        return display_path(workspace, Path(lexical_workspace_path(workspace, raw_path)[2]))
    except ToolError:
        return raw_path


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
        raise ToolError(f"cannot read {shown}: {_problem(exc)}") from exc
    with os.fdopen(fd, "rb") as f:
        size = os.fstat(f.fileno()).st_size
        if size > EDIT_MAX_BYTES:
            raise ToolError(f"{shown} is {size} bytes, more than the {EDIT_MAX_BYTES} this "
                            "tool loads whole; change it with exec instead")
        try:
            data = f.read(EDIT_MAX_BYTES + 1)
        except OSError as exc:
            raise ToolError(f"cannot read {shown}: {_problem(exc)}") from exc
    return data, shown


# --- read -----------------------------------------------------------------------------


def _open_for_read(workspace: str, raw_path: str) -> tuple[int, str, int]:
    """(descriptor, path shown to the model, size) of a regular file in the workspace."""
    shown: str | None = None  # the resolved name; before it is known, worked out on error
    try:
        with resolve(workspace, raw_path) as found:
            shown = found.shown
            fd, _ = open_regular(found, os.O_RDONLY)
    except (FileNotFoundError, NotADirectoryError):
        raise ToolError(f"file not found: {shown or shown_path(workspace, raw_path)}") from None
    except IsADirectoryError:
        raise ToolError(f"{shown or shown_path(workspace, raw_path)} is a directory; use ls "
                        "to list it") from None
    except ToolError:
        raise
    except OSError as exc:
        raise ToolError(f"cannot read {shown or shown_path(workspace, raw_path)}: "
                        f"{_problem(exc)}") from exc
    return fd, shown, os.fstat(fd).st_size


@dataclass(slots=True)
class _Window:
    """The lines `read` shows, gathered as the file streams past."""

    start: int  # 0-based index of the first line shown
    end: int  # one past the last line that may be shown
    lines: list[str]
    chars: int = 0
    cut: bool = False  # cut at READ_MAX_CHARS

    def take(self, index: int, raw: bytes) -> None:
        if not self.start <= index < self.end or self.cut:
            return
        text = raw.decode("utf-8", errors="replace").removesuffix("\n")
        room = READ_MAX_CHARS - self.chars - (1 if self.lines else 0)
        if len(text) > room:
            text = text[:max(room, 0)]
            self.cut = True
            self.end = index + 1
        self.lines.append(text)
        self.chars += len(text) + (1 if len(self.lines) > 1 else 0)


def _next_line(f: BinaryIO, budget: int) -> tuple[bytes, int]:
    """The next line, at most `_LINE_BYTES` of it (the rest is skipped, as far as
    `budget` bytes go), and how many bytes were consumed; b"" at the end."""
    raw = f.readline(_LINE_BYTES)
    used = len(raw)
    if len(raw) == _LINE_BYTES and not raw.endswith(b"\n"):
        while used < budget and (more := f.readline(_LINE_BYTES)):  # the over-long rest
            used += len(more)
            if more.endswith(b"\n"):
                break
    return raw, used


def _read_lines(fd: int, shown: str, offset: int, limit: int) -> dict[str, Any]:
    """Stream the file behind `fd` (closing it) and show lines offset.. of it."""
    with os.fdopen(fd, "rb", closefd=True) as f:
        size = os.fstat(f.fileno()).st_size
        try:
            sniff = f.peek(_SNIFF_BYTES)[:_SNIFF_BYTES]  # type: ignore[attr-defined]
        except OSError as exc:
            raise ToolError(f"cannot read {shown}: {exc.strerror or exc}") from exc
        if _is_binary(sniff):
            raise ToolError(f"{shown} is a binary file ({size} bytes); read shows text only")
        window = _Window(offset - 1, offset - 1 + min(limit, READ_MAX_LINES), [])
        total = scanned = 0
        complete = True
        try:
            while True:
                if scanned >= READ_SCAN_BYTES:
                    complete = f.read(1) == b""
                    break
                raw, used = _next_line(f, READ_SCAN_BYTES - scanned)
                if not raw:
                    break
                scanned += used
                window.take(total, raw)
                total += 1
        except OSError as exc:
            raise ToolError(f"cannot read {shown}: {exc.strerror or exc}") from exc
    return _shown_window(window, shown, offset, limit, total=total, complete=complete,
                         size=size)


def read_window(text: str, shown: str, offset: int, limit: int) -> dict[str, Any]:
    """What `read` answers for a file whose whole `text` came from elsewhere (an
    editor's buffer): lines `offset..` of it, as for a file read here."""
    if "\x00" in text[:_SNIFF_BYTES]:
        raise ToolError(f"{shown} is a binary file; read shows text only")
    window = _Window(offset - 1, offset - 1 + min(limit, READ_MAX_LINES), [])
    parts = text.split("\n")  # lines as `read` cuts them here: at newlines only
    lines = [p + "\n" for p in parts[:-1]] + ([parts[-1]] if parts[-1] else [])
    for index, line in enumerate(lines):
        window.take(index, line.encode("utf-8"))
    return _shown_window(window, shown, offset, limit, total=len(lines), complete=True,
                         size=len(text.encode("utf-8")))


def _shown_window(window: _Window, shown: str, offset: int, limit: int, *, total: int,
                  complete: bool, size: int) -> dict[str, Any]:
    start = window.start
    if not window.lines and total and offset > total:
        if complete:
            raise ToolError(f"offset {offset} is past the end of {shown} ({total} lines)")
        raise ToolError(f"offset {offset} lies beyond the first {READ_SCAN_BYTES} bytes of "
                        f"{shown} ({size} bytes), as far as read looks; use exec (e.g. "
                        f"sed -n '{offset},{offset + limit - 1}p') for that part")
    end = start + len(window.lines)
    body = "\n".join(window.lines)
    notes: list[str] = []
    of = f"{total}" if complete else f"at least {total} (the file is {size} bytes)"
    if end < total or (not complete and window.lines):
        notes.append(f"[Showing lines {start + 1}-{end} of {of}. Use offset={end + 1} to "
                     "continue.]")
    elif window.cut:
        notes.append(f"[Output truncated at {READ_MAX_CHARS} characters.]")
    out = body + ("\n\n" + notes[0] if notes else "")
    return text_result(out, path=shown, totalLines=total, totalLinesKnown=complete,
                       startLine=start + 1, endLine=end, truncated=bool(notes))


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
        raise ToolError(f"cannot write {shown}: {_problem(exc)}") from exc
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
        raise ToolError(f"cannot read {shown}: {_problem(exc)}") from exc
    with os.fdopen(fd, "r+b") as f:
        size = os.fstat(f.fileno()).st_size
        if size > EDIT_MAX_BYTES:
            raise ToolError(f"{shown} is {size} bytes, more than the {EDIT_MAX_BYTES} edit "
                            "loads whole; change it with exec instead")
        data = f.read()
        if _is_binary(data[:_SNIFF_BYTES]):
            raise ToolError(f"{shown} is a binary file ({len(data)} bytes); edit changes "
                            "text only")
        text = data.decode("utf-8", errors="replace")
        updated, first_line = replace_once(text, old, new, shown)
        try:
            f.seek(0)
            f.truncate(0)
            f.write(updated.encode("utf-8"))
        except OSError as exc:
            raise ToolError(f"cannot write {shown}: {_problem(exc)}") from exc
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
        raise ToolError(f"cannot list {shown}: {_problem(exc)}") from exc
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
        return f"{entry.name}  [unreadable: {_problem(exc)}]", False
    try:
        if entry.is_symlink():
            try:
                os.stat(entry.name, dir_fd=dir_fd)
            except FileNotFoundError:
                return f"{entry.name}  [broken symbolic link]", False
            return entry.name, True
        mode = entry.stat(follow_symlinks=False).st_mode
    except OSError as exc:
        return f"{entry.name}  [unreadable: {_problem(exc)}]", False
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
