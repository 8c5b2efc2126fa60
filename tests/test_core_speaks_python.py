"""The core speaks Python: JavaScript values and helpers stay in `clawharness.conformance`.

`undefined`, `Map`, `Set`, JavaScript errors and the `js_*` helpers exist only to turn
the original's recorded vectors into Python and back. No module outside
`clawharness/conformance/` may import them, name them, or import the conformance package.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src" / "clawharness"
CORE = sorted(p for p in SRC.rglob("*.py") if "conformance" not in p.relative_to(SRC).parts)
#: the one front for the conformance runner (`clawharness conformance run`)
CONFORMANCE_FRONTS = {"cli/conformance_cmd.py": "clawharness.conformance.runner"}
FORBIDDEN_NAMES = frozenset({
    "UNDEFINED", "Undefined", "JsError", "JsMap", "JsSet", "js_truthy", "js_get",
    "js_regex", "js_trim", "js_string", "strict_deep_equal",
})


def test_the_core_has_modules_to_check() -> None:
    assert len(CORE) > 200


@pytest.mark.parametrize("path", CORE, ids=lambda p: str(p.relative_to(SRC)))
def test_module_has_no_javascript_values_or_helpers(path: Path) -> None:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    front = CONFORMANCE_FRONTS.get(str(path.relative_to(SRC)))
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module != front:
            assert not node.module.startswith("clawharness.conformance"), (
                f"{path.name} imports {node.module}")
        if isinstance(node, ast.Import):
            for alias in node.names:
                assert not alias.name.startswith("clawharness.conformance"), alias.name
        if isinstance(node, ast.Name | ast.Attribute):
            name = node.id if isinstance(node, ast.Name) else node.attr
            assert name not in FORBIDDEN_NAMES, f"{path.name}:{node.lineno} uses {name}"
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            assert node.name not in FORBIDDEN_NAMES, f"{path.name} defines {node.name}"
