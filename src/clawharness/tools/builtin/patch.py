"""`apply_patch`: the file-oriented patch format Codex models write.

    *** Begin Patch
    *** Add File: path          then "+" lines: the new file
    *** Delete File: path
    *** Update File: path
    *** Move to: new/path       (optional, right after Update File)
    @@ optional context line    then " " context, "-" removed and "+" added lines
    *** End of File             (optional: the hunk ends at the end of the file)
    *** End Patch

Hunks are located by their context and removed lines, exact first, then ignoring
trailing whitespace, then surrounding whitespace, then typographic punctuation. The whole
patch is checked before any file is written, so a patch applies completely or not at all.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from clawharness.errors import ToolError
from clawharness.harness.tool_spec import ToolCallContext, ToolSpec
from clawharness.harness.workspace import real_workspace_root
from clawharness.tools.builtin._common import require_str, text_result
from clawharness.tools.builtin.confined import check_writable, resolve
from clawharness.tools.builtin.fs import read_file_bytes, shown_path, write_file

__all__ = [
    "AddFile",
    "DeleteFile",
    "PatchChunk",
    "PatchError",
    "UpdateFile",
    "apply_chunks",
    "apply_patch_to_workspace",
    "apply_patch_tool",
    "parse_patch",
]

_BEGIN = "*** Begin Patch"
_END = "*** End Patch"
_ADD = "*** Add File: "
_DELETE = "*** Delete File: "
_UPDATE = "*** Update File: "
_MOVE = "*** Move to: "
_EOF = "*** End of File"


class PatchError(ToolError):
    """A patch that does not parse or does not fit the files it names."""

    code = "patch_invalid"


@dataclass(frozen=True, slots=True)
class PatchChunk:
    """One `@@` hunk: the lines it replaces and the lines it puts in their place."""

    context: str | None
    old_lines: tuple[str, ...]
    new_lines: tuple[str, ...]
    end_of_file: bool = False


@dataclass(frozen=True, slots=True)
class AddFile:
    """`*** Add File:` a new file with this content."""

    path: str
    content: str


@dataclass(frozen=True, slots=True)
class DeleteFile:
    """`*** Delete File:`."""

    path: str


@dataclass(frozen=True, slots=True)
class UpdateFile:
    """`*** Update File:` its hunks, optionally `*** Move to:` a new path."""

    path: str
    move_to: str | None = None
    chunks: tuple[PatchChunk, ...] = field(default_factory=tuple)


FileOp = AddFile | DeleteFile | UpdateFile


# --- parsing --------------------------------------------------------------------------


def _strip_heredoc(lines: list[str]) -> list[str]:
    # models sometimes send the shell form: <<'EOF' ... EOF around the patch
    if len(lines) >= 4 and lines[0].strip().startswith("<<") and lines[-1].strip().isidentifier():
        return lines[1:-1]
    return lines


def parse_patch(text: str) -> list[FileOp]:
    """Parse a patch into its file operations, or raise `PatchError` saying where it broke."""
    lines = _strip_heredoc(text.strip().splitlines())
    if not lines or lines[0].strip() != _BEGIN:
        raise PatchError(f"the first line of the patch must be '{_BEGIN}'")
    if lines[-1].strip() != _END:
        raise PatchError(f"the last line of the patch must be '{_END}'")
    ops: list[FileOp] = []
    i, last = 1, len(lines) - 1
    while i < last:
        line = lines[i].strip()
        if line.startswith(_ADD):
            path = line[len(_ADD) :].strip()
            i += 1
            body: list[str] = []
            while i < last and lines[i].startswith("+"):
                body.append(lines[i][1:])
                i += 1
            ops.append(AddFile(path, "".join(f"{b}\n" for b in body)))
        elif line.startswith(_DELETE):
            ops.append(DeleteFile(line[len(_DELETE) :].strip()))
            i += 1
        elif line.startswith(_UPDATE):
            path = line[len(_UPDATE) :].strip()
            i += 1
            move_to = None
            if i < last and lines[i].strip().startswith(_MOVE):
                move_to = lines[i].strip()[len(_MOVE) :].strip()
                i += 1
            chunks: list[PatchChunk] = []
            while i < last and not lines[i].strip().startswith("*** "):
                if not lines[i].strip():
                    i += 1
                    continue
                chunk, i = _parse_chunk(lines, i, last, first=not chunks, path=path)
                chunks.append(chunk)
            if not chunks and move_to is None:
                raise PatchError(f"update hunk for {path!r} has no changes")
            ops.append(UpdateFile(path, move_to, tuple(chunks)))
        elif not line:
            i += 1
        else:
            raise PatchError(
                f"line {i + 1}: {lines[i]!r} is not a valid file operation (expected "
                f"'{_ADD}', '{_DELETE}' or '{_UPDATE}')"
            )
    for op in ops:
        if not op.path:
            raise PatchError("a file operation names no path")
    return ops


def _parse_chunk(
    lines: list[str], i: int, last: int, *, first: bool, path: str
) -> tuple[PatchChunk, int]:
    context: str | None = None
    head = lines[i]
    if head.strip() == "@@":
        i += 1
    elif head.startswith("@@ "):
        context = head[3:]
        i += 1
    elif not first:
        raise PatchError(f"line {i + 1}: expected an '@@' hunk header in {path!r}, got {head!r}")
    old: list[str] = []
    new: list[str] = []
    eof = False
    start = i
    while i < last:
        line = lines[i]
        if line.strip() == _EOF:
            eof = True
            i += 1
            break
        if line.startswith(("@@", "*** ")):
            break
        if line == "":
            old.append("")
            new.append("")
        elif line[0] == " ":
            old.append(line[1:])
            new.append(line[1:])
        elif line[0] == "-":
            old.append(line[1:])
        elif line[0] == "+":
            new.append(line[1:])
        else:
            raise PatchError(
                f"line {i + 1}: {line!r} in the hunk for {path!r} must start with ' ', '-' or '+'"
            )
        i += 1
    if i == start and not eof:
        raise PatchError(f"line {i + 1}: empty hunk in the update of {path!r}")
    return PatchChunk(context, tuple(old), tuple(new), eof), i


# --- applying -------------------------------------------------------------------------

_PUNCT = str.maketrans(
    {
        "\u2010": "-",
        "\u2011": "-",
        "\u2012": "-",
        "\u2013": "-",
        "\u2014": "-",
        "\u2015": "-",
        "\u2212": "-",
        "\u2018": "'",
        "\u2019": "'",
        "\u201a": "'",
        "\u201b": "'",
        "\u201c": '"',
        "\u201d": '"',
        "\u201e": '"',
        "\u201f": '"',
        "\u00a0": " ",
        "\u2002": " ",
        "\u2003": " ",
        "\u2009": " ",
        "\u202f": " ",
    }
)

_NORMALIZERS: tuple[Callable[[str], str], ...] = (
    lambda s: s,
    str.rstrip,
    str.strip,
    lambda s: s.strip().translate(_PUNCT),
)


def _find_run(haystack: list[str], needle: list[str], start: int) -> int | None:
    """The first index >= `start` where `needle` occurs in `haystack`, in linear time
    (Knuth-Morris-Pratt over lines: a file of repeated lines cannot make it quadratic)."""
    fallback = [0] * len(needle)
    k = 0
    for i in range(1, len(needle)):
        while k and needle[i] != needle[k]:
            k = fallback[k - 1]
        if needle[i] == needle[k]:
            k += 1
        fallback[i] = k
    k = 0
    for i in range(start, len(haystack)):
        while k and haystack[i] != needle[k]:
            k = fallback[k - 1]
        if haystack[i] == needle[k]:
            k += 1
            if k == len(needle):
                return i - k + 1
    return None


def _seek(lines: list[str], pattern: tuple[str, ...], start: int, eof: bool) -> int | None:
    if not pattern:
        return start
    n = len(pattern)
    if n > len(lines):
        return None
    for norm in _NORMALIZERS:
        want = [norm(p) for p in pattern]
        have = [norm(line) for line in lines]
        if eof and have[len(lines) - n :] == want:
            return len(lines) - n
        found = _find_run(have, want, max(start, 0))
        if found is not None:
            return found
    return None


def apply_chunks(original: str, chunks: tuple[PatchChunk, ...], path: str) -> str:
    """The content of `original` after its update hunks (raises `PatchError` on a misfit)."""
    lines = original.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    replacements: list[tuple[int, int, tuple[str, ...]]] = []
    index = 0
    for chunk in chunks:
        if chunk.context is not None:
            found = _seek(lines, (chunk.context,), index, False)
            if found is None:
                raise PatchError(f"could not find the context line {chunk.context!r} in {path}")
            index = found + 1
        if not chunk.old_lines:
            replacements.append((len(lines), 0, chunk.new_lines))
            continue
        old, new = chunk.old_lines, chunk.new_lines
        found = _seek(lines, old, index, chunk.end_of_file)
        if found is None and old[-1] == "":
            # a trailing blank line in the hunk often stands for the file's final newline
            old = old[:-1]
            new = new[:-1] if new and new[-1] == "" else new
            found = _seek(lines, old, index, chunk.end_of_file)
        if found is None:
            expected = "\n".join(chunk.old_lines)
            raise PatchError(f"could not find the expected lines in {path}:\n{expected}")
        replacements.append((found, len(old), new))
        index = found + len(old)
    for start, length, new in sorted(replacements, key=lambda r: r[0], reverse=True):
        lines[start : start + length] = list(new)
    return "\n".join(lines) + "\n" if lines else ""


def _problem(exc: OSError) -> str:
    if exc.errno == errno.ELOOP:
        return "a symbolic link loop (too many levels of symbolic links)"
    return (exc.strerror or str(exc)).lower()


def _locate(workspace: str, raw_path: str, verb: str) -> tuple[str, str]:
    """(the resolved real path, the path shown) of a file the patch names, refused when
    it could not be written in place (a directory, a special file, a hard link)."""
    shown = shown_path(workspace, raw_path)
    try:
        with resolve(workspace, raw_path) as found:
            shown = found.shown
            if not found.name:
                raise PatchError(f"cannot {verb} {shown}: it is a directory")
            check_writable(found)
            return found.real_path, shown
    except (FileNotFoundError, NotADirectoryError) as exc:
        if verb not in ("add", "move to") or isinstance(exc, NotADirectoryError):
            raise PatchError(f"file not found: {shown}") from None
        # a new file in directories the patch makes: nothing there to follow yet
        return os.path.join(real_workspace_root(workspace), shown), shown
    except IsADirectoryError:
        raise PatchError(f"cannot {verb} {shown}: it is a directory") from None
    except ToolError:
        raise
    except OSError as exc:
        raise PatchError(f"cannot {verb} {shown}: {_problem(exc)}") from exc


def _remove(workspace: str, raw_path: str) -> None:
    """Remove the name itself (a symlink is removed, not what it points to)."""
    with resolve(workspace, raw_path, follow=False) as found:
        if found.name:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(found.name, dir_fd=found.parent_fd)


def _staged_key(workspace: str, raw_path: str, staged: Mapping[str, object]) -> str:
    """The key `raw_path` was staged under, if an earlier operation of the patch staged
    it (a file added, then updated); "" when it was not."""
    try:
        with resolve(workspace, raw_path) as found:
            key = found.real_path
    except (OSError, ToolError):
        key = os.path.join(real_workspace_root(workspace), shown_path(workspace, raw_path))
    return key if key in staged else ""


def apply_patch_to_workspace(workspace: str, text: str) -> dict[str, Any]:
    """Check and apply a whole patch inside `workspace`; returns the tool result."""
    ops = parse_patch(text)
    # real path -> (the path to write it by, new content or None to delete); computed
    # and checked fully before anything is written
    staged: dict[str, tuple[str, str | None]] = {}
    added: list[str] = []
    modified: list[str] = []
    deleted: list[str] = []

    def current(raw_path: str, key: str) -> str:
        if key in staged:
            content = staged[key][1]
            if content is None:
                raise PatchError(f"{shown_path(workspace, raw_path)} is deleted earlier in "
                                 "this patch")
            return content
        try:
            data, shown = read_file_bytes(workspace, raw_path)
        except PatchError:
            raise
        except ToolError as exc:  # a patch that does not fit the files is the patch's error
            raise PatchError(str(exc)) from exc
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError:
            raise PatchError(f"{shown} is not UTF-8 text; apply_patch edits text files "
                             "only") from None

    for op in ops:
        if isinstance(op, AddFile):
            key, shown = _locate(workspace, op.path, "add")
            staged[key] = (op.path, op.content)
            added.append(shown)
        elif isinstance(op, DeleteFile):
            current(op.path, _staged_key(workspace, op.path, staged))  # there, as text
            key, shown = _locate(workspace, op.path, "delete")
            staged[key] = (op.path, None)
            deleted.append(shown)
        else:
            original = current(op.path, _staged_key(workspace, op.path, staged))
            key, shown = _locate(workspace, op.path, "update")
            updated = apply_chunks(original, op.chunks, shown)
            if op.move_to is not None:
                target, target_shown = _locate(workspace, op.move_to, "move to")
                staged[key] = (op.path, None)
                staged[target] = (op.move_to, updated)
                modified.append(target_shown)
            else:
                staged[key] = (op.path, updated)
                modified.append(shown)
    for raw_path, content in staged.values():
        try:
            if content is None:
                _remove(workspace, raw_path)
            else:
                write_file(workspace, raw_path, content.encode("utf-8"))
        except (OSError, ToolError) as exc:
            why = _problem(exc) if isinstance(exc, OSError) else str(exc)
            raise ToolError(f"cannot write {shown_path(workspace, raw_path)}: {why} (files "
                            "before it in the patch were written)") from exc
    summary = ["Success. Updated the following files:"]
    summary += [f"A {p}" for p in added] + [f"M {p}" for p in modified]
    summary += [f"D {p}" for p in deleted]
    return text_result("\n".join(summary), added=added, modified=modified, deleted=deleted)


async def _execute(args: Mapping[str, Any], ctx: ToolCallContext) -> dict[str, Any]:
    text = require_str(args, "input")
    return await asyncio.to_thread(apply_patch_to_workspace, ctx.workspace_dir, text)


def apply_patch_tool() -> ToolSpec:
    """`apply_patch {input}`: apply a `*** Begin Patch` patch to workspace files."""
    return ToolSpec(
        name="apply_patch",
        description=(
            "Apply a patch to files in the workspace. The input starts with '*** Begin Patch' "
            "and ends with '*** End Patch'; between them use '*** Add File: <path>' (lines "
            "prefixed '+'), '*** Delete File: <path>', or '*** Update File: <path>' "
            "(optionally '*** Move to: <path>') followed by '@@' hunks whose lines start with "
            "' ' (context), '-' (remove) or '+' (add)."
        ),
        parameters={
            "type": "object",
            "properties": {
                "input": {"type": "string", "description": "The full patch text"},
            },
            "required": ["input"],
            "additionalProperties": False,
        },
        execute=_execute,
    )
