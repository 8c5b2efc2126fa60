"""The `clawharness` executable's entry point.

`clawharness --version` is answered here, before the command line (typer, rich) is
imported at all; everything else goes to `clawharness.cli.main`.
"""

from __future__ import annotations

import sys

from clawharness.cli.version import version_text

__all__ = ["main"]

#: the arguments answered without building the command line
_VERSION_FLAGS = (["--version"], ["-V"])


def main() -> None:
    if sys.argv[1:] in _VERSION_FLAGS:
        sys.stdout.write(version_text() + "\n")
        return
    from clawharness.cli.main import main as run_command_line

    run_command_line()
