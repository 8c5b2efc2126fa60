"""Every recorded vector for the runtime-plan, user-input and harness-error exports must reproduce."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from clawharness.conformance.runner import compare, run_case

VECTORS = Path("/work/shared/conformance/vectors.jsonl")
FUNCTIONS = {
    "buildAgentHarnessUserInputAnswers",
    "emptyAgentHarnessUserInputAnswers",
    "normalizeAgentHarnessUserInputAnswer",
    "formatAgentHarnessUserInputPrompt",
    "normalizeQuestionTimeoutSeconds",
    "buildAgentRuntimePlan",
    "AgentHarnessPreflightError",
    "AgentHarnessSessionSupersededError",
}


def _load() -> list[dict[str, Any]]:
    if not VECTORS.exists():
        return []
    cases = [json.loads(line) for line in VECTORS.read_text().splitlines() if line.strip()]
    return [case for case in cases if case["fn"].partition(".")[0] in FUNCTIONS]


CASES = _load()


def test_the_vector_file_holds_every_function_of_this_group() -> None:
    if not VECTORS.exists():
        pytest.skip("conformance vectors are not available")
    assert {case["fn"].partition(".")[0] for case in CASES} == FUNCTIONS


@pytest.mark.parametrize("case", CASES, ids=[case["id"] for case in CASES])
def test_recorded_call_reproduces(case: dict[str, Any]) -> None:
    got = run_case(case)
    assert compare(case, got), f"expected {case['expect']!r}, got {got!r}"
