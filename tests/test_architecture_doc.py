"""`docs/architecture.md` names real code: in its turn flow, every function written as
`Name()` or `Class.method()` is defined in a module named on the same line, and every
module named there exists."""

from __future__ import annotations

import ast
import re
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src" / "clawharness"
DOC = ROOT / "docs" / "architecture.md"

_MODULE = re.compile(r"\b([a-z_][\w/]*\.py)\b")
_NAME = re.compile(r"\b([A-Za-z_]\w*(?:\.\w+)?)\(\)")


def _flow() -> list[str]:
    text = DOC.read_text(encoding="utf-8")
    section = text.split("## One turn, as data flows", 1)[1]
    block = section.split("```", 2)[1]
    return block.splitlines()


@cache
def _defined(path: Path) -> frozenset[str]:
    """Names a module defines: its functions and classes, and `Class.member` for what
    each class defines in its body."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            names.add(node.name)
        elif isinstance(node, ast.ClassDef):
            names.add(node.name)
            for item in node.body:
                if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef):
                    names.add(f"{node.name}.{item.name}")
                elif isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
                    names.add(f"{node.name}.{item.target.id}")
    return frozenset(names)


def test_the_turn_flow_names_modules_that_exist() -> None:
    modules = [m for line in _flow() for m in _MODULE.findall(line)]
    assert len(modules) >= 20
    missing = sorted({m for m in modules if not (SRC / m).is_file()})
    assert missing == []


def test_every_function_in_the_turn_flow_is_defined_where_its_line_says() -> None:
    checked = 0
    unresolved: list[str] = []
    for line in _flow():
        names = _NAME.findall(line)
        if not names:
            continue
        modules = [SRC / m for m in _MODULE.findall(line)]
        assert modules, f"a function named without its module: {line.strip()!r}"
        for name in names:
            checked += 1
            if not any(name in _defined(path) for path in modules if path.is_file()):
                unresolved.append(f"{name} (line: {line.strip()!r})")
    assert unresolved == []
    assert checked >= 20
