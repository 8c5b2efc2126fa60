"""No import cycles among `src/clawharness` modules.

The graph is read from the source text with `ast` (nothing is imported):
- an edge per `import x` / `from x import y` (to `x.y` when that is a module, else to `x`);
- importing `a.b.c` also runs the `__init__` of `a` and `a.b`, so those are edges too,
  except a module's own parent packages (they are already being imported);
- imports under `if TYPE_CHECKING:` are left out: they never run, and they are how a
  module names a type of a module that imports it.

Module-level imports must form no cycle at all. Imports inside functions (deferred to
call time) must form none either, apart from the few deferrals named in `DEFERRED`, each
with the reason it stays; a deferral that no longer exists must leave the list.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Mapping
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"

#: function-level imports that close a cycle on purpose: (importer, imported) -> why
DEFERRED: Mapping[tuple[str, str], str] = {}


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


def _imports(tree: ast.Module, *, in_functions: bool) -> Iterator[ast.Import | ast.ImportFrom]:
    def walk(body: list[ast.stmt]) -> Iterator[ast.Import | ast.ImportFrom]:
        for node in body:
            if isinstance(node, ast.Import | ast.ImportFrom):
                yield node
            elif isinstance(node, ast.If) and _is_type_checking(node.test):
                yield from walk(node.orelse)
            elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                if in_functions:
                    yield from walk(node.body)
            else:  # classes, try, with, loops, other ifs: their statements run on import
                for child in ast.iter_child_nodes(node):
                    if isinstance(child, ast.stmt):
                        yield from walk([child])
                    elif isinstance(child, ast.ExceptHandler | ast.match_case):
                        yield from walk(child.body)

    return walk(tree.body)


def import_graph(root: Path, *, in_functions: bool) -> dict[str, set[str]]:
    """Module -> the modules importing it runs (see the module docstring)."""
    modules = _modules(root)
    graph: dict[str, set[str]] = {}
    for module, (path, is_package) in modules.items():
        edges: set[str] = set()
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in _imports(tree, in_functions=in_functions):
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


def test_module_level_imports_form_no_cycle() -> None:
    cycle = find_cycle(import_graph(SRC, in_functions=False))
    assert cycle is None, "import cycle at module level: " + " -> ".join(cycle or ())


def test_function_level_imports_form_no_cycle_but_the_named_deferrals() -> None:
    graph = import_graph(SRC, in_functions=True)
    for (importer, imported), why in DEFERRED.items():
        assert imported in graph[importer], f"stale deferral {importer} -> {imported}: {why}"
        graph[importer].discard(imported)
    cycle = find_cycle(graph)
    assert cycle is None, "import cycle through a function-level import: " + " -> ".join(
        cycle or ())


def test_the_graph_sees_cycles_through_functions_packages_and_not_type_checking(
        tmp_path: Path) -> None:
    pkg = tmp_path / "pkg"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "sub" / "__init__.py").write_text("from pkg.sub.leaf import x\n")
    (pkg / "sub" / "leaf.py").write_text("from pkg import top\nx = 1\n")
    (pkg / "top.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import pkg.other\n"
        "def f():\n    from pkg.sub import leaf\n")
    (pkg / "other.py").write_text("import pkg.top\n")

    module_level = import_graph(tmp_path, in_functions=False)
    assert module_level["pkg.top"] == set()  # TYPE_CHECKING and function bodies left out
    assert module_level["pkg.sub.leaf"] == {"pkg.top"}  # own parents are not edges
    assert find_cycle(module_level) is None
    cycle = find_cycle(import_graph(tmp_path, in_functions=True))
    assert cycle is not None and {"pkg.top", "pkg.sub", "pkg.sub.leaf"} <= set(cycle)
