"""Every recorded vector for the runtime-plan, user-input and harness-error exports must reproduce."""

from __future__ import annotations

from typing import Any

import pytest
from vectors_file import load_cases

from clawharness.conformance.runner import compare, run_case

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




CASES = load_cases(FUNCTIONS)


def test_the_vector_file_holds_every_function_of_this_group() -> None:
    assert {case["fn"].partition(".")[0] for case in CASES} == FUNCTIONS


@pytest.mark.parametrize("case", CASES, ids=[case["id"] for case in CASES])
def test_recorded_call_reproduces(case: dict[str, Any]) -> None:
    got = run_case(case)
    assert compare(case, got), f"expected {case['expect']!r}, got {got!r}"
