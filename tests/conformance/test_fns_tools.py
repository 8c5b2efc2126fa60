"""Recorded conformance vectors for the tool helpers (group A)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from clawharness.conformance.runner import compare, run_case


def _vectors_path() -> Path:
    # shared/ sits beside the work tree (locally and in CI); /work/shared is the usual spot.
    beside = Path(__file__).resolve().parents[3] / "shared" / "conformance" / "vectors.jsonl"
    return beside if beside.exists() else Path("/work/shared/conformance/vectors.jsonl")


_VECTORS = _vectors_path()
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


def _load() -> list[dict[str, Any]]:
    if not _VECTORS.exists():
        return []
    cases = []
    for line in _VECTORS.read_text(encoding="utf-8").splitlines():
        if line.strip():
            case = json.loads(line)
            if case["fn"].split(".")[0] in _HEADS:
                cases.append(case)
    return cases


_CASES = _load()


@pytest.mark.skipif(not _CASES, reason="conformance vectors not available")
@pytest.mark.parametrize("case", _CASES, ids=[c["id"] for c in _CASES])
def test_vector_matches_recorded_original(case: dict[str, Any]) -> None:
    got = run_case(case)
    assert compare(case, got), f"expected {case['expect']!r}\n     got {got!r}"


def test_every_group_a_export_has_vectors() -> None:
    heads = {case["fn"].split(".")[0] for case in _CASES}
    assert heads == _HEADS
