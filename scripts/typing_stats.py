"""How typed the source is: `Any` per 1,000 lines, and camelCase string literals.

Two figures per area of `src/clawharness` (a top-level package or module):

- `any_per_kloc`: how often the name `Any` occurs (as a token: annotations, casts,
  imports) per 1,000 source lines;
- `camel_strings`: string literals that are a camelCase identifier (`"toolName"`,
  `"isError"`): dict keys and field names of the original's JavaScript shapes. They
  belong at the edges that speak those shapes (conformance, gateway frames, the config
  file, transcript messages), not in the core's own records.

The core is `attempt/`, `harness/`, `sessions/`, `store/`, `plugins/` and `host.py`;
`tests/test_typing_stats.py` holds its figures under a ceiling. `records/` (the typed
records and their one serialiser per JSON shape, so the original's camelCase keys on
purpose) is reported beside it.

    python scripts/typing_stats.py            # a table
    python scripts/typing_stats.py --json     # one line of JSON
"""

from __future__ import annotations

import argparse
import ast
import io
import json
import re
import sys
import tokenize
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1] / "src" / "clawharness"
#: the core the issue-32 figures are about (top-level packages and modules)
CORE = ("attempt", "harness", "sessions", "store", "plugins", "host.py")
_CAMEL = re.compile(r"^[a-z][a-z0-9]*(?:[A-Z][a-z0-9]*)+$")


@dataclass(frozen=True, slots=True)
class Figures:
    """One file's, or a sum of files', counts."""

    lines: int = 0
    any_names: int = 0
    camel_strings: int = 0

    def __add__(self, other: Figures) -> Figures:
        return Figures(self.lines + other.lines, self.any_names + other.any_names,
                       self.camel_strings + other.camel_strings)

    @property
    def any_per_kloc(self) -> float:
        return round(self.any_names * 1000 / self.lines, 1) if self.lines else 0.0


def file_figures(path: Path) -> Figures:
    text = path.read_text(encoding="utf-8")
    any_names = sum(1 for tok in tokenize.generate_tokens(io.StringIO(text).readline)
                    if tok.type == tokenize.NAME and tok.string == "Any")
    camel = sum(1 for node in ast.walk(ast.parse(text))
                if isinstance(node, ast.Constant) and isinstance(node.value, str)
                and _CAMEL.match(node.value))
    return Figures(text.count("\n"), any_names, camel)


def area_of(path: Path, root: Path = ROOT) -> str:
    parts = path.relative_to(root).parts
    return parts[0]


def by_area(root: Path = ROOT) -> dict[str, Figures]:
    areas: dict[str, Figures] = {}
    for path in sorted(root.rglob("*.py")):
        area = area_of(path, root)
        areas[area] = areas.get(area, Figures()) + file_figures(path)
    return areas


def total(areas: dict[str, Figures], names: Iterable[str] | None = None,
          *, without: Iterable[str] = ()) -> Figures:
    chosen = set(areas) if names is None else set(names)
    chosen -= set(without)
    summed = Figures()
    for name in chosen & set(areas):
        summed = summed + areas[name]
    return summed


def report(root: Path = ROOT) -> dict[str, object]:
    """The figures as JSON: the whole tree, the core, and each area."""
    areas = by_area(root)
    everything = total(areas)
    core = total(areas, CORE)
    return {
        "any_per_kloc": everything.any_per_kloc,
        "camel_strings_outside_conformance": total(areas, without=("conformance",)).camel_strings,
        "core_any_per_kloc": core.any_per_kloc,
        "core_camel_strings": core.camel_strings,
        "core_lines": core.lines,
        "lines": everything.lines,
        "areas": {name: {"lines": f.lines, "any_per_kloc": f.any_per_kloc,
                         "camel_strings": f.camel_strings} for name, f in sorted(areas.items())},
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", action="store_true", help="one line of JSON")
    args = parser.parse_args(argv)
    figures = report()
    if args.json:
        print(json.dumps(figures, sort_keys=True))
        return 0
    areas = figures["areas"]
    assert isinstance(areas, dict)
    print(f"{'area':<16}{'lines':>8}{'Any/kLOC':>10}{'camel':>8}")
    for name, row in sorted(areas.items(), key=lambda kv: -kv[1]["camel_strings"]):
        mark = " *" if name in CORE else ""
        print(f"{name:<16}{row['lines']:>8}{row['any_per_kloc']:>10}{row['camel_strings']:>8}"
              f"{mark}")
    print(f"\nall: {figures['lines']} lines, {figures['any_per_kloc']} Any/kLOC, "
          f"{figures['camel_strings_outside_conformance']} camelCase strings outside "
          f"conformance/")
    print(f"core (*): {figures['core_lines']} lines, {figures['core_any_per_kloc']} Any/kLOC, "
          f"{figures['core_camel_strings']} camelCase strings")
    return 0


if __name__ == "__main__":
    sys.exit(main())
