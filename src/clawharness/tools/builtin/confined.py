"""File access inside the workspace by descriptor: no check-then-use race, no special files.

A path is walked one component at a time from a descriptor of the workspace root, each
directory opened with `O_NOFOLLOW | O_DIRECTORY` relative to its parent (`openat`), so a
component swapped for a symlink between two steps makes the open fail instead of
leading elsewhere. Symlinks met on the way are resolved here, explicitly: one whose
target stays inside the workspace is followed, one that leads out is refused
(`WorkspacePathEscapeError`), more than `MAX_LINK_HOPS` is a loop (`ELOOP`).

What is found is opened only once it is known to be a regular file (the walk's lstat,
or a descriptor with `O_PATH`, looks without opening): a FIFO, a socket or a device is
refused at once, never opened (opening a FIFO blocks until a writer comes; a device may
act on open). A file about to be written in place must have one name only
(`st_nlink == 1`): through a hard link, a write would change a file whose other name
may lie outside the workspace.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from collections.abc import Iterator
from dataclasses import dataclass, field

from clawharness.errors import ToolError, WorkspacePathEscapeError
from clawharness.harness.workspace import lexical_workspace_path

__all__ = [
    "MAX_LINK_HOPS",
    "Resolved",
    "SpecialFileError",
    "check_writable",
    "describe_kind",
    "open_directory",
    "open_for_reading",
    "open_regular",
    "resolve",
    "resolve_open",
]

MAX_LINK_HOPS = 40
_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_O_PATH = getattr(os, "O_PATH", 0)


class SpecialFileError(ToolError):
    """A FIFO, socket or device where a file tool wants a regular file, or a file it
    would write through a second name."""

    code = "special_file"


def describe_kind(mode: int) -> str:
    """`a FIFO (named pipe)`, `a socket`, ... for a file's `st_mode`."""
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode):
        return "a character device"
    if stat.S_ISBLK(mode):
        return "a block device"
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISLNK(mode):
        return "a symbolic link"
    return "not a regular file"


@dataclass(slots=True)
class Resolved:
    """Where a path led: its parent directory (an open descriptor) and final name.

    `name` is "" for the workspace root itself. The descriptors close with the
    `resolve` context.
    """

    root_real: str
    parent_fd: int
    name: str
    #: the components from the root to the parent, as resolved
    parents: tuple[str, ...]
    _owned: list[int] = field(default_factory=list)
    #: the final name's own status as the walk saw it (a link is not followed; None
    #: when the walk did not look: absent, not followed, or the root itself)
    seen: os.stat_result | None = None

    @property
    def shown(self) -> str:
        """The resolved path relative to the workspace (`.` for the root)."""
        parts = [*self.parents, self.name] if self.name else list(self.parents)
        return "/".join(parts) or "."

    @property
    def real_path(self) -> str:
        return os.path.join(self.root_real, *self.parents, *([self.name] if self.name else []))

    def close(self) -> None:
        """Close the descriptors the walk opened (`resolve_open`'s caller does)."""
        _close_all(self._owned)

    def lstat(self) -> os.stat_result | None:
        """The final name's own status (a link is not followed), None when it is absent."""
        if not self.name:
            return os.stat(self.parent_fd)
        try:
            return os.stat(self.name, dir_fd=self.parent_fd, follow_symlinks=False)
        except FileNotFoundError:
            return None


def _escape(user_path: str, root_real: str, target: str) -> WorkspacePathEscapeError:
    return WorkspacePathEscapeError(
        f"path {user_path!r} leads outside the workspace {root_real} through a symlink "
        f"(to {target})")


def _relative_parts(path: str, root_real: str, root_lexical: str) -> list[str] | None:
    """`path` (absolute, normalized) as components below the root, or None if outside."""
    for root in (root_real, root_lexical):
        if path == root:
            return []
        prefix = root.rstrip(os.sep) + os.sep
        if path.startswith(prefix):
            return [p for p in path[len(prefix):].split(os.sep) if p]
    return None


@contextlib.contextmanager
def resolve(workspace: str | os.PathLike[str], user_path: str, *, follow: bool = True,
            make_parents: bool = False) -> Iterator[Resolved]:
    """Walk `user_path` inside `workspace` by descriptor.

    The final component is followed when it is a symlink (`follow`, for reading and
    writing), or left as it is (for removing a name). A missing final component is fine
    (a file to create); a missing directory before it is `FileNotFoundError`, or made
    when `make_parents`.
    """
    found = resolve_open(workspace, user_path, follow=follow, make_parents=make_parents)
    try:
        yield found
    finally:
        found.close()


def resolve_open(workspace: str | os.PathLike[str], user_path: str, *, follow: bool = True,
                 make_parents: bool = False) -> Resolved:
    """`resolve` without the context: the caller closes what it found (`Resolved.close`).
    (For a hot path: one `read` per tool call, where the context's generator machinery
    costs more than the walk's Python.)"""
    root_real, root_lexical, lexical = lexical_workspace_path(workspace, user_path)
    parts = _relative_parts(lexical, root_real, root_lexical)
    assert parts is not None  # lexical_workspace_path refused anything outside
    owned: list[int] = []
    root_fd = os.open(root_real, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    owned.append(root_fd)
    try:
        return _walk(user_path, root_real, root_lexical, root_fd, parts, owned,
                     follow=follow, make_parents=make_parents)
    except BaseException:
        _close_all(owned)
        raise


def _close_all(owned: list[int]) -> None:
    for fd in owned:
        try:
            os.close(fd)
        except OSError:
            pass


def _names(stack: list[tuple[str, int]]) -> tuple[str, ...]:
    # (a name at the root, the usual case, makes no generator for an empty stack)
    return tuple([n for n, _ in stack]) if stack else ()


def _walk(user_path: str, root_real: str, root_lexical: str, root_fd: int,
          parts: list[str], owned: list[int], *, follow: bool,
          make_parents: bool) -> Resolved:
    stack: list[tuple[str, int]] = []  # directories below the root: (name, descriptor)
    pending = list(reversed(parts))   # a stack: the next component last
    hops = 0
    while pending:
        name = pending.pop()
        if name in ("", "."):
            continue
        if name == "..":
            if not stack:
                raise _escape(user_path, root_real, os.path.join(root_real, ".."))
            stack.pop()
            continue
        here = stack[-1][1] if stack else root_fd
        last = not pending
        if last and not follow:
            return Resolved(root_real, here, name, _names(stack), owned)
        try:
            info = os.stat(name, dir_fd=here, follow_symlinks=False)
        except FileNotFoundError:
            if last:
                return Resolved(root_real, here, name, _names(stack), owned)
            if not make_parents:
                raise
            with contextlib.suppress(FileExistsError):
                os.mkdir(name, 0o777, dir_fd=here)
            info = os.stat(name, dir_fd=here, follow_symlinks=False)
        if stat.S_ISLNK(info.st_mode):
            hops += 1
            if hops > MAX_LINK_HOPS:
                raise OSError(errno.ELOOP, os.strerror(errno.ELOOP), user_path)
            target = os.readlink(name, dir_fd=here)
            if os.path.isabs(target):
                inside = _relative_parts(os.path.normpath(target), root_real, root_lexical)
                if inside is None:
                    raise _escape(user_path, root_real, target)
                stack.clear()  # the descriptors stay owned; they close with the context
                pending.extend(reversed(inside))
            else:
                pending.extend(reversed(target.split("/")))
            continue
        if last:
            return Resolved(root_real, here, name, _names(stack), owned, info)
        fd = os.open(name, _DIR_FLAGS, dir_fd=here)  # ENOTDIR, or ELOOP if swapped for a link
        owned.append(fd)
        stack.append((name, fd))
    # the path is the root itself, or led back to it
    here = stack[-1][1] if stack else root_fd
    if stack:
        return Resolved(root_real, stack[-2][1] if len(stack) > 1 else root_fd,
                        stack[-1][0], tuple(n for n, _ in stack[:-1]), owned)
    return Resolved(root_real, here, "", (), owned)


def open_regular(found: Resolved, flags: int, *, writing: bool = False,
                 create: bool = False) -> tuple[int, bool]:
    """A descriptor of the regular file `found` names, opened with `flags`
    (`os.O_RDONLY`, `os.O_RDWR`, ...), and whether it was created.

    `SpecialFileError` for a FIFO, socket or device (never opened), and when `writing`
    for a file with more than one name; `IsADirectoryError` for a directory;
    `FileNotFoundError` when absent (unless `create`).
    """
    if not found.name:
        raise IsADirectoryError(errno.EISDIR, "is a directory", found.shown)
    if create:
        try:
            fd = os.open(found.name, flags | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW
                         | os.O_CLOEXEC, 0o666, dir_fd=found.parent_fd)
            return fd, True
        except FileExistsError:
            pass  # there is one (now): open it as an existing file below
    return _open_looked(found, _look(found), flags, writing=writing)[0], False


def open_for_reading(found: Resolved) -> tuple[int, os.stat_result]:
    """`open_regular(found, os.O_RDONLY)` straight after the walk, and the file's status
    as opened.

    The walk's own lstat of the final name (`found.seen`) is the look before opening:
    looking again just before the open (`_look`) narrows no window, since the identity
    check after opening is what catches a name swapped in between either way, and it
    costs an open, an fstat and a close per read. (So only where nothing happened since
    the walk: a writer may have made or replaced the file since, and looks again.)"""
    if not found.name:
        raise IsADirectoryError(errno.EISDIR, "is a directory", found.shown)
    seen = found.seen
    looked = _look(found) if seen is None else _check_kind(found, seen)
    return _open_looked(found, looked, os.O_RDONLY, writing=False)


def _open_looked(found: Resolved, looked: os.stat_result, flags: int, *,
                 writing: bool) -> tuple[int, os.stat_result]:
    """Open the regular file `looked` showed `found`'s name to be, refusing anything
    else there by then; the descriptor and its status."""
    fd = os.open(found.name, flags | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC,
                 dir_fd=found.parent_fd)
    try:
        opened = os.fstat(fd)
        if (opened.st_dev, opened.st_ino) != (looked.st_dev, looked.st_ino):
            raise SpecialFileError(f"{found.shown} changed while it was being opened; "
                                   "try again")
        if writing and opened.st_nlink > 1:
            raise _linked(found, opened.st_nlink)
        os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return fd, opened


def _look(found: Resolved) -> os.stat_result:
    """The final name's status, found without opening it as a file."""
    if _O_PATH:
        fd = os.open(found.name, _O_PATH | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=found.parent_fd)
        try:
            info = os.fstat(fd)
        finally:
            os.close(fd)
    else:  # no O_PATH (not Linux): an lstat, then the identity check after opening
        info = os.stat(found.name, dir_fd=found.parent_fd, follow_symlinks=False)
    return _check_kind(found, info)


def _check_kind(found: Resolved, info: os.stat_result) -> os.stat_result:
    """`info` (the final name's own status) when it is a regular file; else refused."""
    if stat.S_ISDIR(info.st_mode):
        raise IsADirectoryError(errno.EISDIR, "is a directory", found.shown)
    if stat.S_ISLNK(info.st_mode):  # swapped for a link since it was resolved
        raise SpecialFileError(f"{found.shown} changed while it was being opened; try again")
    if not stat.S_ISREG(info.st_mode):
        raise SpecialFileError(f"{found.shown} is {describe_kind(info.st_mode)}, not a "
                               "regular file; file tools only work on regular files")
    return info


def _linked(found: Resolved, links: int) -> SpecialFileError:
    return SpecialFileError(
        f"{found.shown} has {links} names (hard links); writing it would change the file "
        "under its other names too, which may lie outside the workspace, so it is refused. "
        "Copy it to a new file and edit that instead")


def check_writable(found: Resolved) -> None:
    """Refuse (without writing) what `open_regular(..., writing=True)` would refuse."""
    if found.lstat() is None:
        return
    info = _look(found)
    if info.st_nlink > 1:
        raise _linked(found, info.st_nlink)


def open_directory(found: Resolved) -> int:
    """A descriptor of the directory `found` names (the caller closes it)."""
    if not found.name:
        return os.dup(found.parent_fd)
    return os.open(found.name, _DIR_FLAGS, dir_fd=found.parent_fd)
