"""The layers of `src/clawharness`, and the two rules that keep them.

`LAYERS` lists every package (a folder, or a module at the top of `clawharness`) from the
bottom up, grouped into named layers. The rules:

1. **Imports point down.** A package imports only packages listed before it: those of
   lower layers, and those before it in its own layer. Never one after it.
2. **No circle.** No module imports itself through others.

Both rules count every import: at module level, under `if TYPE_CHECKING:` (a type-only
import still ties the importer to what it names) and inside functions (a deferred
import still runs). The graph is read from the source with `ast` (nothing is imported):
an edge per `import x` / `from x import y` (to `x.y` when that is a module, else to
`x`); importing `a.b.c` also runs the `__init__` of `a` and `a.b`, so those are edges
too, except a module's own parent packages (they are already being imported).

A new package must be placed here; `PENDING` names the few edges that still break a
rule, each with the work that removes it, and fails when that edge is gone (so the entry
goes too). `python tests/test_layers.py` prints the layers and what each package imports.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"
ROOT = "clawharness"

#: bottom up; inside a layer, a package may use those listed before it
LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("foundation: plain values, the error tree, limits, redaction",
     ("_ids", "_json", "_text", "_utf16", "_numbers", "_gc", "redaction", "problems",
      "errors", "limits", "extras")),
    ("names and config: what an operator writes, and its shape",
     ("names", "config")),
    ("records: what the parts store, observe and deliver",
     ("store", "observability", "delivery")),
    ("the harness contract: the runtime plan and its rules, then the contract and selection",
     ("runtime_plan", "harness")),
    ("the parts a turn is made of",
     ("tools", "sessions", "tool_display", "providers", "models", "mcp")),
    ("the turn: attempt rules and runner, the plugin runtime",
     ("attempt", "plugins")),
    ("the SDK, the harnesses built on it, and the test kit (it re-exports the SDK's "
     "contract kit beside the scripted model server)",
     ("plugin_sdk", "harnesses", "testing")),
    ("the host: one door, and the run service every front starts turns on",
     ("llm", "cluster", "host", "runs")),
    ("fronts and applications",
     ("worker", "mcp_serve", "gateway", "doctor", "conformance", "cli")),
    ("entry point",
     ("__main__",)),
)

#: (importer, imported) edges that still break a rule -> the work that removes them
PENDING: Mapping[tuple[str, str], str] = {
    ("clawharness.attempt.turn", "clawharness.plugins.runtime"):
        "the turn runner reads the whole plugin runtime (TurnContext.plugins); it goes when "
        "the runner asks for the plugin runtime's services (issue 32, step 2)",
}


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _modules(root: Path) -> dict[str, tuple[Path, bool]]:
    found: dict[str, tuple[Path, bool]] = {}
    for path in sorted(root.rglob("*.py")):
        parts = list(path.relative_to(root).with_suffix("").parts)
        is_package = parts[-1] == "__init__"
        if is_package:
            parts = parts[:-1]
        found[".".join(parts)] = (path, is_package)
    return found


def _targets(node: ast.Import | ast.ImportFrom, module: str, is_package: bool) -> Iterator[str]:
    if isinstance(node, ast.Import):
        yield from (alias.name for alias in node.names)
        return
    base = node.module or ""
    if node.level:
        package = module.split(".") if is_package else module.split(".")[:-1]
        package = package[:len(package) - (node.level - 1)]
        base = ".".join([*package, *([node.module] if node.module else [])])
    yield base
    yield from (f"{base}.{alias.name}" for alias in node.names)


def _imports(tree: ast.Module) -> Iterator[ast.Import | ast.ImportFrom]:
    """Every import statement: at module level, under TYPE_CHECKING, inside functions."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Import | ast.ImportFrom):
            yield node


def import_graph(root: Path) -> dict[str, set[str]]:
    """Module -> the modules importing it runs or names (see the module docstring)."""
    modules = _modules(root)
    graph: dict[str, set[str]] = {}
    for module, (path, is_package) in modules.items():
        edges: set[str] = set()
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in _imports(tree):
            for target in _targets(node, module, is_package):
                while target and target not in modules:
                    target = target.rpartition(".")[0]
                if not target:
                    continue
                parts = target.split(".")
                for i in range(1, len(parts) + 1):
                    step = ".".join(parts[:i])
                    if step in modules and step != module and not module.startswith(step + "."):
                        edges.add(step)
        graph[module] = edges
    return graph


def find_cycle(graph: Mapping[str, set[str]]) -> list[str] | None:
    """One import cycle (its modules in order, the first repeated last), or None."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return [*path[path.index(nxt):], nxt]
            if nxt not in state and (found := visit(nxt)) is not None:
                return found
        path.pop()
        state[node] = 2
        return None

    for start in sorted(graph):
        if start not in state and (found := visit(start)) is not None:
            return found
    return None


def package_of(module: str, root: str = ROOT) -> str | None:
    """`clawharness.store.sqlite` -> `store`; the root package itself has none."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[0] == root else None


def ranks(layers: tuple[tuple[str, tuple[str, ...]], ...]) -> dict[str, int]:
    order = [package for _name, packages in layers for package in packages]
    assert len(order) == len(set(order)), "a package is placed twice"
    return {package: i for i, package in enumerate(order)}


def upward_imports(graph: Mapping[str, set[str]], rank: Mapping[str, int],
                   root: str = ROOT) -> list[tuple[str, str]]:
    """Every edge from a package to one placed after it (or to itself never counts)."""
    found = []
    for importer, imported in sorted((a, b) for a, targets in graph.items() for b in targets):
        low, high = package_of(importer, root), package_of(imported, root)
        if low is None or high is None or low == high:
            continue
        if rank[high] > rank[low]:
            found.append((importer, imported))
    return found


def _without_pending(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    """The graph without the PENDING edges (and the package `__init__` edges that come
    with them alone); each must still be there."""
    for (importer, imported), why in PENDING.items():
        assert imported in graph.get(importer, set()), (
            f"{importer} no longer imports {imported}: remove its PENDING entry ({why})")
        graph[importer] = graph[importer] - {imported}
    for importer in {importer for importer, _ in PENDING}:
        kept = graph[importer]
        needed = {".".join(t.split(".")[:i]) for t in kept if t not in _parents(PENDING, importer)
                  for i in range(1, t.count(".") + 1)}
        graph[importer] = {t for t in kept
                           if t not in _parents(PENDING, importer) or t in needed}
    return graph


def _parents(pending: Mapping[tuple[str, str], str], importer: str) -> set[str]:
    """The packages above the modules `importer` imports only as PENDING edges."""
    return {".".join(b.split(".")[:i]) for a, b in pending if a == importer
            for i in range(1, b.count(".") + 1)}


def _packages(root: Path) -> set[str]:
    top = root / ROOT
    return ({p.name for p in top.iterdir() if p.is_dir() and (p / "__init__.py").exists()}
            | {p.stem for p in top.glob("*.py") if p.stem != "__init__"})


def test_every_package_is_placed_in_a_layer() -> None:
    placed = set(ranks(LAYERS))
    present = _packages(SRC)
    assert present - placed == set(), "place these packages in LAYERS"
    assert placed - present == set(), "these packages are gone: take them out of LAYERS"


def test_imports_point_down_the_layers() -> None:
    graph = _without_pending(import_graph(SRC))
    upward = upward_imports(graph, ranks(LAYERS))
    assert upward == [], "imports from a lower layer up:\n" + "\n".join(
        f"  {a} -> {b}" for a, b in upward)


def test_no_import_circle() -> None:
    cycle = find_cycle(_without_pending(import_graph(SRC)))
    assert cycle is None, "import circle: " + " -> ".join(cycle or ())


def test_the_checks_see_type_only_deferred_and_package_imports(tmp_path: Path) -> None:
    pkg = tmp_path / "pkg"
    for name in ("low", "high", "sub"):
        (pkg / name).mkdir(parents=True)
        (pkg / name / "__init__.py").write_text("")
    (pkg / "__init__.py").write_text("")
    (pkg / "sub" / "__init__.py").write_text("from pkg.sub.leaf import x\n")
    (pkg / "sub" / "leaf.py").write_text("from pkg.low import a\nx = 1\n")
    (pkg / "low" / "a.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg.high import b\n")
    (pkg / "high" / "b.py").write_text("def f():\n    from pkg.sub import leaf\n")

    graph = import_graph(tmp_path)
    assert graph["pkg.low.a"] == {"pkg.high", "pkg.high.b"}  # type-only counts
    assert "pkg.sub" in graph["pkg.high.b"]  # so does a deferred one, and its package
    assert graph["pkg.sub.leaf"] == {"pkg.low", "pkg.low.a"}  # own parents are not edges
    cycle = find_cycle(graph)
    assert cycle is not None and {"pkg.low.a", "pkg.high.b", "pkg.sub.leaf"} <= set(cycle)

    layered = (("bottom", ("low", "sub")), ("top", ("high",)))
    assert upward_imports(graph, ranks(layered), root="pkg") == [("pkg.low.a", "pkg.high"),
                                                                 ("pkg.low.a", "pkg.high.b")]


def main() -> None:
    graph = import_graph(SRC)
    rank = ranks(LAYERS)
    uses: dict[str, set[str]] = {}
    for importer, targets in graph.items():
        low = package_of(importer)
        for imported in targets:
            high = package_of(imported)
            if low is not None and high is not None and high != low:
                uses.setdefault(low, set()).add(high)
    for name, packages in reversed(LAYERS):
        print(name)
        for package in reversed(packages):
            below = sorted(uses.get(package, ()), key=lambda p: -rank[p])
            print(f"  {package:<14} {' '.join(below)}")


if __name__ == "__main__":
    sys.exit(main())
