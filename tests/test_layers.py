"""The layers of `src/clawharness`, and the rules that keep them.

`LAYERS` lists every package (a folder, or a module at the top of `clawharness`) from the
bottom up, grouped into named layers. The rules:

1. **Imports point down.** A package imports only packages listed before it: those of
   lower layers, and those before it in its own layer. Never one after it.
2. **No circle.** No module imports itself through others.
3. **One public face.** A package answers others through its `__init__`: a docstring and
   `__all__`, each name there provided (imported, defined, or loaded on first use through
   `clawharness._faces.lazy_face`, whose table must match the `TYPE_CHECKING` imports
   beside it). Another package imports from it only names of that `__all__` (a module at
   the top: names of its own `__all__`; the plugin SDK: its public modules, and the
   names of theirs). A module never imports names from its own package's face.

The first two count every import: at module level, under `if TYPE_CHECKING:` (a type-only
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
     ("_ids", "_json", "_json_text", "_text", "_utf16", "_numbers", "_gc", "_faces", "_config_paths",
      "_frozen",
      "_serve_record", "redaction", "problems", "errors", "limits", "extras")),
    ("names and config: what an operator writes, and its shape",
     ("names", "config")),
    ("records: what the parts store, observe and deliver",
     ("delivery", "records", "store", "observability")),
    ("the harness contract: the runtime plan and its rules, then the contract and selection",
     ("runtime_plan", "harness")),
    ("the parts a turn is made of",
     ("tools", "sessions", "tool_display", "providers", "models", "mcp", "spend", "context")),
    ("the turn: attempt rules and runner, the plugin runtime",
     ("attempt", "plugins")),
    ("the SDK, the harnesses built on it, and the test kit (it re-exports the SDK's "
     "contract kit beside the scripted model server)",
     ("plugin_sdk", "harnesses", "testing")),
    ("the host: one door, and the run service every front starts turns on",
     ("llm", "cluster", "subagents", "_host_parts", "host_portable", "host_reports", "_host_sessions",
      "host", "runs")),
    ("fronts and applications",
     ("worker", "mcp_serve", "acp_serve", "gateway", "doctor", "conformance", "cli")),
    ("entry point",
     ("__main__",)),
)

#: (importer, imported) edges that still break a rule -> the work that removes them
PENDING: Mapping[tuple[str, str], str] = {}


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


def _all_of(tree: ast.Module) -> list[str] | None:
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets):
            assert isinstance(node.value, ast.List | ast.Tuple)
            return [e.value for e in node.value.elts if isinstance(e, ast.Constant)]
    return None


def _provided(tree: ast.Module) -> set[str]:
    """Names the module binds at its top level, outside `if TYPE_CHECKING:`."""
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.Import | ast.ImportFrom):
            names |= {(a.asname or a.name).split(".")[0] for a in node.names}
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            for target in node.targets:
                names |= {n.id for n in ast.walk(target) if isinstance(n, ast.Name)}
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
    return names


def _lazy_table(tree: ast.Module) -> dict[str, str]:
    """The `lazy_face(__name__, {...})` table of a face, if it has one."""
    for node in ast.walk(tree):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                and node.func.id == "lazy_face" and len(node.args) == 2
                and isinstance(node.args[1], ast.Dict)):
            return {k.value: v.value for k, v in zip(node.args[1].keys, node.args[1].values,
                                                    strict=True)
                    if isinstance(k, ast.Constant) and isinstance(v, ast.Constant)}
    return {}


def _type_checking_imports(tree: ast.Module) -> dict[str, str]:
    found: dict[str, str] = {}
    for node in tree.body:
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            for stmt in node.body:
                if isinstance(stmt, ast.ImportFrom) and stmt.module:
                    found.update({a.asname or a.name: stmt.module for a in stmt.names})
    return found


def faces(root: Path, top_name: str = ROOT) -> dict[str, set[str]]:
    """Package (or top module) -> the names its face offers; plugin_sdk's public modules
    count as `plugin_sdk.<module>` faces of their own."""
    top = root / top_name
    found: dict[str, set[str]] = {}
    for path in sorted(top.glob("*/__init__.py")) + sorted(top.glob("*.py")):
        name = path.parent.name if path.name == "__init__.py" else path.stem
        if name == "__init__":
            continue
        declared = _all_of(ast.parse(path.read_text(encoding="utf-8")))
        found[name] = set(declared or ())
    sdk = top / "plugin_sdk"
    for module in found.get("plugin_sdk", set()):
        path = sdk / f"{module}.py"
        if path.exists():
            found[f"plugin_sdk.{module}"] = set(
                _all_of(ast.parse(path.read_text(encoding="utf-8"))) or ())
    return found


def face_breaches(root: Path, top_name: str = ROOT) -> list[str]:
    """Every import of a name another package's face does not offer, and every module
    that imports from its own package's face."""
    offered = faces(root, top_name)
    modules = _modules(root)
    found: list[str] = []
    for module, (path, _is_package) in sorted(modules.items()):
        importer = package_of(module, top_name)
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if not (isinstance(node, ast.ImportFrom) and node.level == 0 and node.module
                    and node.module.startswith(top_name + ".")):
                continue
            target = package_of(node.module, top_name)
            parts = node.module.split(".")
            if target is None:
                continue
            names = [a.name for a in node.names if f"{node.module}.{a.name}" not in modules]
            if target == importer:
                if node.module == f"{top_name}.{target}" and names and module != node.module:
                    found.append(f"{module}: imports {names} from its own package's face")
                continue
            face = target
            if target == "plugin_sdk" and len(parts) > 2:
                face = f"plugin_sdk.{parts[2]}"
                if parts[2] not in offered["plugin_sdk"]:
                    found.append(f"{module}: {node.module} is not a public module of the SDK")
                    continue
            missing = [n for n in names if n not in offered.get(face, set())]
            if missing:
                found.append(f"{module}: {node.module} -> {missing} not in {face}'s face")
    return found


def test_every_package_has_one_public_face() -> None:
    top = SRC / ROOT
    problems = []
    for init in sorted(top.glob("*/__init__.py")):
        tree = ast.parse(init.read_text(encoding="utf-8"))
        name = init.parent.name
        declared = _all_of(tree)
        if ast.get_docstring(tree) is None:
            problems.append(f"{name}: no docstring (say what the package is, and its map)")
        if declared is None:
            problems.append(f"{name}: no __all__")
            continue
        table = _lazy_table(tree)
        typed = _type_checking_imports(tree)
        if table != {n: m for n, m in typed.items() if n in table} or set(table) != set(typed):
            problems.append(f"{name}: the lazy table and the TYPE_CHECKING imports differ")
        unprovided = set(declared) - _provided(tree) - set(table) - {
            p.stem for p in init.parent.glob("*.py")} - {
            p.name for p in init.parent.iterdir() if (p / "__init__.py").exists()}
        if unprovided:
            problems.append(f"{name}: __all__ names what it does not provide: {sorted(unprovided)}")
    assert problems == []


def test_other_packages_use_only_a_face() -> None:
    assert face_breaches(SRC) == []


def test_the_face_check_sees_names_off_the_face_and_own_face_imports(tmp_path: Path) -> None:
    pkg = tmp_path / "pkg"
    for name in ("low", "high"):
        (pkg / name).mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "low" / "__init__.py").write_text(
        '"""low"""\nfrom pkg.low.a import shown\n__all__ = ["shown"]\n')
    (pkg / "low" / "a.py").write_text("shown = 1\nhidden = 2\n")
    (pkg / "low" / "b.py").write_text("from pkg.low import shown\n")
    (pkg / "high" / "__init__.py").write_text('"""high"""\n__all__: list[str] = []\n')
    (pkg / "high" / "c.py").write_text(
        "from pkg.low import shown\nfrom pkg.low.a import shown as again, hidden\n")
    assert face_breaches(tmp_path, "pkg") == [
        "pkg.high.c: pkg.low.a -> ['hidden'] not in low's face",
        "pkg.low.b: imports ['shown'] from its own package's face",
    ]


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
