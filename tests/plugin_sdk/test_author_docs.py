"""What the docs teach plugin authors is what the code does: their examples import only
`clawharness.plugin_sdk.*`, and the walk-through's excerpts are the example's real code."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
DOCS = [*sorted((REPO / "docs").glob("*.md")), REPO / "README.md"]
BLOCK = re.compile(r"```python\n(?P<code>.*?)```", re.DOTALL)
IMPORT = re.compile(r"^\s*(?:from|import)\s+(clawharness(?:\.\w+)*)", re.MULTILINE)
#: front-facing APIs a doc may show that are not plugin code, and why
NOT_PLUGIN_CODE = {
    "clawharness.host": "README: embedding the host as a library (the one door for fronts)",
    "clawharness.testing": "docs/scripted-model.md, docs/real-model.md: the scripted model "
                           "server and the real model for host tests",
}


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: p.relative_to(REPO).as_posix())
def test_doc_examples_import_only_the_sdk(doc: Path) -> None:
    offenders = []
    for block in BLOCK.finditer(doc.read_text()):
        for module in IMPORT.findall(block["code"]):
            if module == "clawharness.plugin_sdk" or module.startswith("clawharness.plugin_sdk."):
                continue
            if not any(module == allowed or module.startswith(allowed + ".")
                       for allowed in NOT_PLUGIN_CODE):
                offenders.append(module)
    assert offenders == []


def test_the_walk_through_quotes_the_example_as_it_is() -> None:
    text = (REPO / "docs" / "writing-a-harness.md").read_text()
    quoted = 0
    for block in re.finditer(r"```(?:python|toml)\n# file: (?P<path>\S+)\n(?P<code>.*?)```",
                             text, re.DOTALL):
        source = (REPO / block["path"]).read_text()
        assert block["code"] in source, f"docs quote {block['path']} as it no longer is"
        quoted += 1
    assert quoted >= 6


EXAMPLE = re.compile(r"```python\n# example: (?P<name>[^\n]+)\n(?P<code>.*?)```", re.DOTALL)


def doc_examples() -> list[tuple[str, str]]:
    text = (REPO / "docs" / "writing-a-harness.md").read_text()
    return [(m["name"], m["code"]) for m in EXAMPLE.finditer(text)]


def test_the_walk_through_has_runnable_examples() -> None:
    assert {name for name, _ in doc_examples()} >= {
        "middleware and a host tool through ToolCalls",
        "a native turn, from the permission request to the result"}


@pytest.mark.parametrize(("name", "code"), doc_examples(), ids=[n for n, _ in doc_examples()])
def test_each_example_in_the_walk_through_runs_as_written(name: str, code: str,
                                                           tmp_path: Path) -> None:
    """The examples are run as a reader would paste them (each asserts what it shows)."""
    script = tmp_path / "example.py"
    script.write_text(code)
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                          cwd=tmp_path, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
