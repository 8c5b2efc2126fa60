"""Resolve a path a model gave a tool to a real path inside the workspace, or refuse it.

A path may be relative (to the workspace) or absolute. It is refused, with
`WorkspacePathEscapeError` naming it, when it climbs out with `..`, is an absolute path
outside the workspace, or passes through a symlink whose target lies outside.
"""

from __future__ import annotations

import os
from pathlib import Path

from clawharness.errors import WorkspacePathEscapeError

__all__ = ["display_path", "resolve_workspace_path"]


def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


def resolve_workspace_path(workspace_dir: str | os.PathLike[str], user_path: str) -> Path:
    """The real path `user_path` names inside `workspace_dir` (it need not exist yet)."""
    if not isinstance(user_path, str) or not user_path.strip():
        raise ValueError("path must be a non-empty string")
    if "\x00" in user_path:
        raise WorkspacePathEscapeError(f"path {user_path!r} contains a NUL byte")
    root_lexical = os.path.abspath(os.fspath(workspace_dir))
    root_real = os.path.realpath(root_lexical)
    raw = os.path.expanduser(user_path.strip())
    joined = raw if os.path.isabs(raw) else os.path.join(root_real, raw)
    lexical = os.path.normpath(joined)
    # the workspace may be reached through a symlinked parent (e.g. /tmp on macOS), so an
    # absolute path spelled through either form of the root is accepted lexically
    if not (_inside(lexical, root_real) or _inside(lexical, root_lexical)):
        raise WorkspacePathEscapeError(
            f"path {user_path!r} resolves outside the workspace {root_real}"
        )
    real = os.path.realpath(lexical)
    if not _inside(real, root_real):
        raise WorkspacePathEscapeError(
            f"path {user_path!r} leads outside the workspace {root_real} through a symlink "
            f"(to {real})"
        )
    return Path(real)


def display_path(workspace_dir: str | os.PathLike[str], path: Path) -> str:
    """`path` relative to the workspace, for messages to the model."""
    root = os.path.realpath(os.fspath(workspace_dir))
    rel = os.path.relpath(path, root)
    return "." if rel == "." else rel
