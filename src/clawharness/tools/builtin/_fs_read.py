"""The `read` tool (see `clawharness.tools.builtin.fs`): it streams, keeping the lines it
shows and counting the rest, and looks no further than `READ_SCAN_BYTES` into a file; a
small file is read on the event loop, a bigger one in a worker thread."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, BinaryIO

from clawharness.errors import ToolError
from clawharness.harness.tool_spec import ToolCallContext, ToolSpec
from clawharness.tools.builtin._common import optional_int, require_str, text_result
from clawharness.tools.builtin._fs_common import SNIFF_BYTES, is_binary, problem, shown_path
from clawharness.tools.builtin.confined import open_for_reading, resolve_open

__all__ = ["READ_INLINE_BYTES", "READ_MAX_CHARS", "READ_MAX_LINES", "READ_SCAN_BYTES",
           "read_tool", "read_window"]

READ_MAX_LINES = 2000
READ_MAX_CHARS = 50_000
#: `read` of a file up to this size runs on the event loop, bigger ones in a thread
READ_INLINE_BYTES = 256 * 1024
#: how far into a file `read` looks, to reach its offset and count lines after it
READ_SCAN_BYTES = 64 * 1024 * 1024
#: the bytes of one line `read` keeps (more than `READ_MAX_CHARS` could ever show)
_LINE_BYTES = READ_MAX_CHARS * 4 + 4


def _open_for_read(workspace: str, raw_path: str) -> tuple[int, str, int]:
    """(descriptor, path shown to the model, size) of a regular file in the workspace."""
    shown: str | None = None  # the resolved name; before it is known, worked out on error
    try:
        found = resolve_open(workspace, raw_path)
        try:
            shown = found.shown
            fd, opened = open_for_reading(found)
        finally:
            found.close()
    except (FileNotFoundError, NotADirectoryError):
        raise ToolError(f"file not found: {shown or shown_path(workspace, raw_path)}") from None
    except IsADirectoryError:
        raise ToolError(f"{shown or shown_path(workspace, raw_path)} is a directory; use ls "
                        "to list it") from None
    except ToolError:
        raise
    except OSError as exc:
        raise ToolError(f"cannot read {shown or shown_path(workspace, raw_path)}: "
                        f"{problem(exc)}") from exc
    return fd, shown, opened.st_size


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


def _read_lines(fd: int, shown: str, size: int, offset: int, limit: int) -> dict[str, Any]:
    """Stream the file behind `fd` (closing it; `size` is its size as opened) and show
    lines offset.. of it."""
    with os.fdopen(fd, "rb", closefd=True) as f:
        try:
            sniff = f.peek(SNIFF_BYTES)[:SNIFF_BYTES]  # type: ignore[attr-defined]
        except OSError as exc:
            raise ToolError(f"cannot read {shown}: {exc.strerror or exc}") from exc
        return _scan(f, sniff, shown, size, offset, limit)


def _read_small(fd: int, shown: str, size: int, offset: int, limit: int) -> dict[str, Any]:
    """`_read_lines` of a file of at most `READ_INLINE_BYTES` as opened: its bytes read
    by descriptor and its lines cut from memory the same way (a Python file object costs
    two more fstat, an isatty and an lseek per read, and its buffer). One that does not
    end where it did when opened (grown since, or a short read) streams from its start."""
    try:
        data = os.read(fd, size + 1)
        whole = len(data) <= size and not os.read(fd, 1)
        if not whole:
            os.lseek(fd, 0, os.SEEK_SET)
    except OSError as exc:
        os.close(fd)
        raise ToolError(f"cannot read {shown}: {exc.strerror or exc}") from exc
    if not whole:
        return _read_lines(fd, shown, size, offset, limit)
    os.close(fd)
    return _scan_bytes(data, shown, size, offset, limit)


def _scan_bytes(data: bytes, shown: str, size: int, offset: int,
                limit: int) -> dict[str, Any]:
    """`_scan` of a whole file held in `data` (far shorter than `READ_SCAN_BYTES`): its
    lines cut at newlines at once, and only those in the window decoded. A line is shown
    as `_next_line` gives it: its first `_LINE_BYTES`, its newline aside."""
    if is_binary(data[:SNIFF_BYTES]):
        raise ToolError(f"{shown} is a binary file ({size} bytes); read shows text only")
    window = _Window(offset - 1, offset - 1 + min(limit, READ_MAX_LINES), [])
    lines = data.split(b"\n")
    total = len(lines) - 1 if lines[-1] == b"" else len(lines)  # (after a last newline: none)
    index = window.start
    while index < min(window.end, total):  # (a cut at READ_MAX_CHARS ends the window)
        window.take(index, lines[index][:_LINE_BYTES])
        index += 1
    return _shown_window(window, shown, offset, limit, total=total, complete=True,
                         size=size)


def _scan(f: BinaryIO, sniff: bytes, shown: str, size: int, offset: int,
          limit: int) -> dict[str, Any]:
    """Lines offset.. of the text file `f` (its first bytes `sniff`), looking no further
    than `READ_SCAN_BYTES` into it."""
    if is_binary(sniff):
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
    if "\x00" in text[:SNIFF_BYTES]:
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
        return _read_small(fd, shown, size, offset, limit)
    return await asyncio.to_thread(_read_lines, fd, shown, size, offset, limit)


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
