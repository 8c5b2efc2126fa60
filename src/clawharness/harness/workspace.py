"""Resolve a path a model gave a tool to a real path inside the workspace, or refuse it.

A path may be relative (to the workspace) or absolute. It is refused, with
`WorkspacePathEscapeError` naming it, when it climbs out with `..`, is an absolute path
outside the workspace, or passes through a symlink whose target lies outside.

`resolve_workspace_path` answers with a path, checked by name: good for a working
directory or a message. The host's file tools do not act on such a path (it could be
swapped for a symlink before they use it): they walk it by descriptor
(`clawharness.tools.builtin.confined`), starting from `lexical_workspace_path`.
"""

from __future__ import annotations

import functools
import os
from pathlib import Path

from clawharness.errors import ToolError, WorkspacePathEscapeError

__all__ = [
    "InvalidWorkspacePathError",
    "display_path",
    "lexical_workspace_path",
    "real_workspace_root",
    "resolve_workspace_path",
]


class InvalidWorkspacePathError(ToolError, ValueError):
    """A path that is not a path at all (empty, blank, not a string): the model's to fix."""

    code = "tool_input"



def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


@functools.lru_cache(maxsize=256)
def _real_root(root_lexical: str) -> str:
    # os.path.realpath is an lstat per component in Python; a workspace root is resolved
    # on every tool call, and only its own path can change what it resolves to
    return os.path.realpath(root_lexical)


#: on POSIX an absolute path is one starting with "/", and its `abspath` is a pure
#: function of it (no working directory involved), so it is remembered
_POSIX = os.name == "posix"


@functools.lru_cache(maxsize=256)
def _absolute(path: str) -> str:
    return os.path.abspath(path)


def _roots(workspace_dir: str | os.PathLike[str]) -> tuple[str, str]:
    raw = os.fspath(workspace_dir)
    root_lexical = (_absolute(raw) if _POSIX and type(raw) is str and raw[:1] == "/"
                    else os.path.abspath(raw))
    real = _real_root(root_lexical)
    if real != root_lexical and not os.path.isdir(real):  # moved since: look again
        _real_root.cache_clear()
        real = _real_root(root_lexical)
    return root_lexical, real


def real_workspace_root(workspace_dir: str | os.PathLike[str]) -> str:
    """The workspace's real path (symlinks resolved), remembered between calls."""
    return _roots(workspace_dir)[1]


def lexical_workspace_path(workspace_dir: str | os.PathLike[str],
                           user_path: str) -> tuple[str, str, str]:
    """(the root's real path, its path as given, `user_path` normalized without touching
    the file system), refusing `..` and absolute paths outside as `resolve_workspace_path`
    does; symlinks are the caller's to follow (the file tools walk them by descriptor)."""
    stripped = user_path.strip() if isinstance(user_path, str) else ""
    if not stripped:
        raise InvalidWorkspacePathError(f"path must be a non-empty string, not {user_path!r}")
    if "\x00" in user_path:
        raise WorkspacePathEscapeError(f"path {user_path!r} contains a NUL byte")
    root_lexical, root_real = _roots(workspace_dir)
    # (only a path starting with "~" has a user's home to look up)
    raw = os.path.expanduser(stripped) if stripped[:1] == "~" else stripped
    normalized = _normalized if len(raw) <= _REMEMBERED_CHARS else _normalized.__wrapped__
    lexical = normalized(root_real, root_lexical, raw)
    if lexical is None:
        raise WorkspacePathEscapeError(
            f"path {user_path!r} resolves outside the workspace {root_real}"
        )
    return root_real, root_lexical, lexical


#: paths up to this long are remembered (a longer one is no file name: PATH_MAX is 4096)
_REMEMBERED_CHARS = 4096


@functools.lru_cache(maxsize=1024)
def _normalized(root_real: str, root_lexical: str, raw: str) -> str | None:
    """`raw` normalized (relative to the root when it is not absolute), None when that
    lies outside the root. Only strings in, only a string out: remembered, as a model
    names the same few paths over and over (and `normpath` walks them in Python)."""
    joined = raw if os.path.isabs(raw) else os.path.join(root_real, raw)
    lexical = os.path.normpath(joined)
    # the workspace may be reached through a symlinked parent (e.g. /tmp on macOS), so an
    # absolute path spelled through either form of the root is accepted lexically
    if not (_inside(lexical, root_real) or _inside(lexical, root_lexical)):
        return None
    return lexical


def resolve_workspace_path(workspace_dir: str | os.PathLike[str], user_path: str) -> Path:
    """The real path `user_path` names inside `workspace_dir` (it need not exist yet)."""
    root_real, _, lexical = lexical_workspace_path(workspace_dir, user_path)
    real = os.path.realpath(lexical)
    if not _inside(real, root_real):
        raise WorkspacePathEscapeError(
            f"path {user_path!r} leads outside the workspace {root_real} through a symlink "
            f"(to {real})"
        )
    return Path(real)


def display_path(workspace_dir: str | os.PathLike[str], path: Path) -> str:
    """`path` relative to the workspace, for messages to the model."""
    root = _roots(workspace_dir)[1]
    text = os.fspath(path)
    if text == root:
        return "."
    if _inside(text, root):  # the usual case: a plain slice, no relpath walk
        return text[len(root.rstrip(os.sep)) + 1:]
    return os.path.relpath(text, root)
