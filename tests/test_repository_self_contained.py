"""The repository stands alone: tests, scripts, benches and CI read nothing beside the clone.

A static guard for the common ways a path climbs out (`parents[N]` past the root,
`ROOT.parent`, `../shared`); `git clone` into an empty folder plus `bash scripts/test.sh`
is the full proof (see docs/architecture.md).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
AREAS = ("tests", "scripts", "bench", ".ci", "examples")
SUFFIXES = {".py", ".sh", ".toml", ".cfg", ".ini", ".json", ".yaml", ".yml", ""}
#: `Path(__file__).resolve().parents[N]` or `...resolve().parent.parents[N]`
PARENTS = re.compile(r"Path\(__file__\)\.resolve\(\)(?P<parent>\.parent)?\.parents\[(?P<n>\d+)\]")
#: a shell script's `$(dirname "$0")/../..`: each `..` climbs one directory
DIRNAME_UP = re.compile(r"\$\(dirname \"\$0\"\)(?P<ups>(?:/\.\.)+)")
CLIMBS = [
    re.compile(r"\b(?:REPO|ROOT)\.parent\b"),
    re.compile(r"\.\./shared|\"shared\" */|/ *\"shared\""),
]


def area_files() -> list[Path]:
    files = []
    for area in AREAS:
        for path in (REPO / area).rglob("*"):
            if (path.is_file() and path.suffix in SUFFIXES and "__pycache__" not in path.parts
                    and path != Path(__file__).resolve()):  # this file spells the patterns
                files.append(path)
    return sorted(files)


def test_the_areas_have_files_to_check() -> None:
    names = {p.relative_to(REPO).as_posix() for p in area_files()}
    assert {"scripts/test.sh", ".ci/run", "tests/conformance/vectors_file.py"} <= names


def climb_out(text: str, depth: int) -> str | None:
    """What in `text`, a file `depth` directories below the root, reaches beside it."""
    for found in PARENTS.finditer(text):
        if int(found["n"]) + (1 if found["parent"] else 0) > depth:
            return f"{found.group(0)} leaves the repository"
    for found in DIRNAME_UP.finditer(text):
        if found["ups"].count("..") > depth:
            return f"{found.group(0)} leaves the repository"
    for pattern in CLIMBS:
        if pattern.search(text):
            return f"{pattern.pattern} reaches beside the clone"
    return None


@pytest.mark.parametrize("path", area_files(), ids=lambda p: p.relative_to(REPO).as_posix())
def test_no_path_climbs_out_of_the_clone(path: Path) -> None:
    text = path.read_text(encoding="utf-8", errors="replace")
    depth = len(path.relative_to(REPO).parts) - 1  # directories between the file and the root
    assert climb_out(text, depth) is None


def test_the_guard_measures_a_climb_against_the_files_depth() -> None:
    script_climb = 'cd "$(dirname "$0")/../.."'
    assert climb_out(script_climb, 1) is not None  # scripts/x.sh: beside the clone
    assert climb_out(script_climb, 2) is None  # examples/demo/run.sh: the root
    assert climb_out('cd "$(dirname "$0")/.."', 1) is None
    assert climb_out("Path(__file__).resolve().parents[3]", 2) is not None
    assert climb_out("open('../shared/seeds')", 5) is not None


def test_the_conformance_vectors_are_in_the_repository() -> None:
    vectors = REPO / "tests" / "conformance" / "data" / "vectors.jsonl"
    assert vectors.is_file() and vectors.stat().st_size > 0
    assert (vectors.parent / "README.md").is_file()
