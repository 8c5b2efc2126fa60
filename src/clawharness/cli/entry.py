"""The `clawharness` executable's entry point.

`clawharness --version` is answered here, before the command line (typer, rich) is
imported at all, `clawharness --help` with rich alone (`root_help`), and `clawharness
agent -m ...` through a running `serve` with the standard library (`via_serve`);
everything else goes to `clawharness.cli.main`.
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
    if sys.argv[1:2] == ["agent"] and "--local" not in sys.argv[2:]:
        # a turn through a running `serve`, before the command line is built (docs/cli.md);
        # None: there is none to use (or the arguments need the full parser)
        from clawharness.cli.via_serve import run_from_entry

        code = run_from_entry(sys.argv[2:])
        if code is not None:
            raise SystemExit(code)
    # a command imports a few hundred modules (a turn, a thousand) and keeps nearly all it
    # builds: with the default thresholds full collections keep walking it all (about a
    # tenth of a short command's time); a host applies these same thresholds when it starts.
    # Until the command is loaded there is no collection at all (`collect_from_here`).
    from clawharness._gc import HOST_GC_THRESHOLDS

    gc.set_threshold(*HOST_GC_THRESHOLDS)
    gc.disable()
    from clawharness.cli.main import main as run_command_line

    run_command_line()
