"""Bundled harnesses reach the core only through `clawharness.plugin_sdk`."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

HARNESSES = Path(__file__).resolve().parents[2] / "src" / "clawharness" / "harnesses"


def imported_modules(path: Path) -> list[str]:
    tree = ast.parse(path.read_text())
    names: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.append(node.module)
        elif isinstance(node, ast.Import):
            names.extend(alias.name for alias in node.names)
    return names


@pytest.mark.parametrize("package", sorted(p.name for p in HARNESSES.iterdir()
                                           if p.is_dir() and not p.name.startswith("_")))
def test_bundled_harness_imports_only_the_sdk(package: str) -> None:
    allowed = ["clawharness.plugin_sdk", f"clawharness.harnesses.{package}"]
    if package == "embedded":
        allowed.append("clawharness.providers")  # the built-in runtime's model transports
    offenders = []
    for path in (HARNESSES / package).rglob("*.py"):
        for module in imported_modules(path):
            if module.startswith("clawharness") and not any(
                    module == a or module.startswith(a + ".") for a in allowed):
                offenders.append(f"{path.relative_to(HARNESSES)}: {module}")
    assert offenders == []


def _private_sdk_imports(root: Path) -> list[str]:
    """Imports of the SDK's private modules (`clawharness.plugin_sdk._*`)."""
    return [f"{path.relative_to(root.parent)}: {module}"
            for path in sorted(root.rglob("*.py"))
            for module in imported_modules(path)
            if module.startswith("clawharness.plugin_sdk.")
            and module.split(".")[2].startswith("_")]


def test_bundled_harnesses_and_the_example_use_only_the_public_sdk_surface() -> None:
    """The public modules (pinned by tests/plugin_sdk/test_sdk_surface.py), never the
    SDK's own internals: a bundled harness is written as a third-party one would be."""
    example = HARNESSES.parents[2] / "examples" / "echo-harness"
    assert (example / "src").is_dir()
    assert _private_sdk_imports(HARNESSES) == []
    assert _private_sdk_imports(example) == []


def test_the_sdk_depends_on_no_bundled_harness() -> None:
    """The SDK is what harnesses build on; it never republishes one of them."""
    sdk = HARNESSES.parent / "plugin_sdk"
    offenders = [f"{path.relative_to(sdk.parent)}: {module}"
                 for path in sorted(sdk.rglob("*.py"))
                 for module in imported_modules(path)
                 if module == "clawharness.harnesses" or module.startswith("clawharness.harnesses.")]
    assert offenders == []
