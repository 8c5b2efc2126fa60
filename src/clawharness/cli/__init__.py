"""The command line (typer, rich): one module per command group, each imported when its
command runs (`lazy`); `entry.main` is the executable.
"""

from __future__ import annotations

from clawharness._faces import lazy_face

#: `typing` is not imported for it: every command, `--version` too, imports this package
#: first, and `typing` would be a third of what `--version` costs (mypy reads the name)
TYPE_CHECKING = False

if TYPE_CHECKING:
    from clawharness.cli.entry import main

__all__ = [
    "main",
]

__getattr__, __dir__ = lazy_face(__name__, {
    "main": "clawharness.cli.entry",
})
