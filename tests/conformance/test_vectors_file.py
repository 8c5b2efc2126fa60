"""The vectors the conformance tests load: the recorded set in the repository, or another."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from vectors_file import ENV_VAR, RECORDED, load_cases, vectors_path

REPO = Path(__file__).resolve().parents[2]


def test_the_recorded_set_lives_in_the_repository() -> None:
    assert RECORDED.is_file()
    assert RECORDED.is_relative_to(REPO)
    cases = load_cases(path=RECORDED)
    assert len(cases) >= 700
    assert all(case["id"].startswith("pub-") and "expect" in case for case in cases)


def test_the_environment_names_another_vector_file(tmp_path: Path) -> None:
    other = tmp_path / "other.jsonl"
    assert vectors_path({ENV_VAR: str(other)}) == other
    assert vectors_path({}) == RECORDED
    assert vectors_path({ENV_VAR: ""}) == RECORDED


def test_another_file_loads_and_filters_by_function_head(tmp_path: Path) -> None:
    other = tmp_path / "other.jsonl"
    lines = [{"id": "h1", "fn": "toolPolicy.expandToolGroups", "args": [], "expect": {}},
             {"id": "h2", "fn": "isMessagingTool", "args": [], "expect": {}}]
    other.write_text("\n".join(json.dumps(line) for line in lines) + "\n\n")
    assert [c["id"] for c in load_cases(path=other)] == ["h1", "h2"]
    assert [c["id"] for c in load_cases({"toolPolicy"}, path=other)] == ["h1"]


def test_a_missing_file_fails_loudly_naming_the_path_and_the_variable(tmp_path: Path) -> None:
    missing = tmp_path / "nowhere.jsonl"
    with pytest.raises(FileNotFoundError) as caught:
        load_cases(path=missing)
    assert str(missing) in str(caught.value) and ENV_VAR in str(caught.value)


def test_an_empty_or_broken_file_is_an_error_not_an_empty_test_set(tmp_path: Path) -> None:
    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n\n")
    with pytest.raises(ValueError, match="no conformance vectors"):
        load_cases(path=empty)
    broken = tmp_path / "broken.jsonl"
    broken.write_text('{"id": "a", "fn": "x"}\n{not json\n')
    with pytest.raises(ValueError, match="line 2"):
        load_cases(path=broken)
