"""What the workspace file tools (`fs`, `_fs_read`) share: the path shown to the model,
an OS error in words, and the binary-file sniff."""

from __future__ import annotations

import errno
from pathlib import Path

from clawharness.errors import ToolError
from clawharness.harness.workspace import display_path, lexical_workspace_path

__all__ = ["SNIFF_BYTES", "is_binary", "problem", "shown_path"]

#: how much of a file's start is looked at to tell a binary file (a NUL byte)
SNIFF_BYTES = 8192


def is_binary(sample: bytes) -> bool:
    return b"\x00" in sample


def problem(exc: OSError) -> str:
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
