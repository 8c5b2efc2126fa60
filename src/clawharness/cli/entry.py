"""The `clawharness` executable's entry point.

`clawharness --version` is answered here, before the command line (typer, rich) is
imported at all, and `clawharness --help` with rich alone (`root_help`); everything else
goes to `clawharness.cli.main`.
"""

from __future__ import annotations

import gc
import sys

from clawharness.cli import root_help
from clawharness.cli.version import version_text

__all__ = ["main"]

#: the arguments answered without building the command line
_VERSION_FLAGS = (["--version"], ["-V"])


def main() -> None:
    if sys.argv[1:] in _VERSION_FLAGS:
        sys.stdout.write(version_text() + "\n")
        return
    if root_help.answers(sys.argv):
        root_help.print_root_help()
        return
    # a command imports a few hundred modules (a turn, a thousand) and keeps nearly all it
    # builds: with the default thresholds full collections keep walking it all (about a
    # tenth of a short command's time); a host applies these same thresholds when it starts
    from clawharness._gc import HOST_GC_THRESHOLDS

    gc.set_threshold(*HOST_GC_THRESHOLDS)
    from clawharness.cli.main import main as run_command_line

    run_command_line()
