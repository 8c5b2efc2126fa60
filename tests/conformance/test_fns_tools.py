"""Recorded conformance vectors for the tool helpers (group A)."""

from __future__ import annotations

from typing import Any

import pytest
from vectors_file import load_cases

from clawharness.conformance.runner import compare, run_case

_HEADS = frozenset(
    {
        "inferToolMetaFromArgs",
        "sanitizeToolArgs",
        "sanitizeToolResult",
        "extractToolErrorMessage",
        "formatToolProgressOutput",
        "TOOL_PROGRESS_OUTPUT_MAX_CHARS",
        "isToolResultError",
        "isAgentToolReplaySafe",
        "isReplaySafeToolCall",
        "toolPolicy",
        "splitSandboxBindSpec",
        "isSubagentSessionKey",
        "normalizeUsage",
        "assignMcpCatalogSafeServerNames",
    }
)




_CASES = load_cases(_HEADS)


@pytest.mark.parametrize("case", _CASES, ids=[c["id"] for c in _CASES])
def test_vector_matches_recorded_original(case: dict[str, Any]) -> None:
    got = run_case(case)
    assert compare(case, got), f"expected {case['expect']!r}\n     got {got!r}"


def test_every_group_a_export_has_vectors() -> None:
    heads = {case["fn"].split(".")[0] for case in _CASES}
    assert heads == _HEADS
