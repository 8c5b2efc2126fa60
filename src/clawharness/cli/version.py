"""`clawharness X.Y.Z`: what `--version` prints."""

from __future__ import annotations

from clawharness import __version__

__all__ = ["version_text"]


def version_text() -> str:
    """The version line; `__version__` is the distribution's one source (pyproject.toml
    reads it), so no package metadata is read for it."""
    return f"clawharness {__version__}"
