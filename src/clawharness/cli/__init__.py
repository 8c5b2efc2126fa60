"""The command line (typer, rich): one module per command group, each imported when its
command runs (`lazy`); `entry.main` is the executable.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from clawharness._faces import lazy_face

if TYPE_CHECKING:
    from clawharness.cli.entry import main

__all__ = [
    "main",
]

__getattr__, __dir__ = lazy_face(__name__, {
    "main": "clawharness.cli.entry",
})
