"""Resolve a path a model gave a tool to a real path inside the workspace, or refuse it.

A path may be relative (to the workspace) or absolute. It is refused, with
`WorkspacePathEscapeError` naming it, when it climbs out with `..`, is an absolute path
outside the workspace, or passes through a symlink whose target lies outside.
"""

from __future__ import annotations

import functools
import os
from pathlib import Path

from clawharness.errors import ToolError, WorkspacePathEscapeError

__all__ = [
    "InvalidWorkspacePathError",
    "display_path",
    "open_workspace_file",
    "real_workspace_root",
    "resolve_workspace_path",
]


class InvalidWorkspacePathError(ToolError, ValueError):
    """A path that is not a path at all (empty, blank, not a string): the model's to fix."""

    code = "tool_input"

#: where the kernel names the file behind an open descriptor (Linux)
_FD_LINKS = "/proc/self/fd"


def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


@functools.lru_cache(maxsize=256)
def _real_root(root_lexical: str) -> str:
    # os.path.realpath is an lstat per component in Python; a workspace root is resolved
    # on every tool call, and only its own path can change what it resolves to
    return os.path.realpath(root_lexical)


def _roots(workspace_dir: str | os.PathLike[str]) -> tuple[str, str]:
    root_lexical = os.path.abspath(os.fspath(workspace_dir))
    real = _real_root(root_lexical)
    if real != root_lexical and not os.path.isdir(real):  # moved since: look again
        _real_root.cache_clear()
        real = _real_root(root_lexical)
    return root_lexical, real


def real_workspace_root(workspace_dir: str | os.PathLike[str]) -> str:
    """The workspace's real path (symlinks resolved), remembered between calls."""
    return _roots(workspace_dir)[1]


def _lexical_path(workspace_dir: str | os.PathLike[str], user_path: str) -> tuple[str, str]:
    """(root_real, the normalized path) or WorkspacePathEscapeError for `..` and outside paths."""
    if not isinstance(user_path, str) or not user_path.strip():
        raise InvalidWorkspacePathError(f"path must be a non-empty string, not {user_path!r}")
    if "\x00" in user_path:
        raise WorkspacePathEscapeError(f"path {user_path!r} contains a NUL byte")
    root_lexical, root_real = _roots(workspace_dir)
    raw = os.path.expanduser(user_path.strip())
    joined = raw if os.path.isabs(raw) else os.path.join(root_real, raw)
    lexical = os.path.normpath(joined)
    # the workspace may be reached through a symlinked parent (e.g. /tmp on macOS), so an
    # absolute path spelled through either form of the root is accepted lexically
    if not (_inside(lexical, root_real) or _inside(lexical, root_lexical)):
        raise WorkspacePathEscapeError(
            f"path {user_path!r} resolves outside the workspace {root_real}"
        )
    return root_real, lexical


def resolve_workspace_path(workspace_dir: str | os.PathLike[str], user_path: str) -> Path:
    """The real path `user_path` names inside `workspace_dir` (it need not exist yet)."""
    root_real, lexical = _lexical_path(workspace_dir, user_path)
    real = os.path.realpath(lexical)
    if not _inside(real, root_real):
        raise WorkspacePathEscapeError(
            f"path {user_path!r} leads outside the workspace {root_real} through a symlink "
            f"(to {real})"
        )
    return Path(real)


def open_workspace_file(workspace_dir: str | os.PathLike[str], user_path: str) -> tuple[int, Path]:
    """Open `user_path` for reading, confined like `resolve_workspace_path`: (fd, real path).

    Where the kernel names open files (Linux), the check is made on the file actually
    opened, so a symlink swapped in between check and open cannot lead outside, and it
    costs one system call instead of an lstat per path component. FileNotFoundError
    when there is no such file inside; the caller closes the descriptor.
    """
    root_real, lexical = _lexical_path(workspace_dir, user_path)
    try:
        fd = os.open(lexical, os.O_RDONLY | os.O_CLOEXEC | os.O_NONBLOCK)
    except FileNotFoundError:
        resolve_workspace_path(workspace_dir, user_path)  # a dangling link out: say so
        raise
    try:
        try:
            real = os.readlink(f"{_FD_LINKS}/{fd}")
        except OSError:  # no /proc: resolve by name instead
            real = os.path.realpath(lexical)
        if not _inside(real, root_real):
            raise WorkspacePathEscapeError(
                f"path {user_path!r} leads outside the workspace {root_real} through a "
                f"symlink (to {real})"
            )
    except BaseException:
        os.close(fd)
        raise
    return fd, Path(real)


def display_path(workspace_dir: str | os.PathLike[str], path: Path) -> str:
    """`path` relative to the workspace, for messages to the model."""
    root = _roots(workspace_dir)[1]
    text = os.fspath(path)
    if text == root:
        return "."
    if _inside(text, root):  # the usual case: a plain slice, no relpath walk
        return text[len(root.rstrip(os.sep)) + 1:]
    return os.path.relpath(text, root)
