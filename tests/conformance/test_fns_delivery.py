"""Every recorded vector for the delivery-fact and session-spawn exports must reproduce."""

from __future__ import annotations

from typing import Any

import pytest
from vectors_file import load_cases

from clawharness.conformance.runner import compare, run_case

FUNCTIONS = {
    "readEmbeddedMessageDeliveryFact",
    "isDeliveredMessagingToolResult",
    "projectPluginMessageDeliveryFact",
    "isDeliveredMessagingToolSendToCurrentSource",
    "extractMessagingToolSourceReplyPayload",
    "isMessagingTool",
    "isMessagingToolSendAction",
    "normalizeAcceptedSessionSpawnResult",
}




CASES = load_cases(FUNCTIONS)


def test_the_vector_file_holds_every_delivery_function() -> None:
    assert {case["fn"] for case in CASES} == FUNCTIONS


@pytest.mark.parametrize("case", CASES, ids=[case["id"] for case in CASES])
def test_recorded_call_reproduces(case: dict[str, Any]) -> None:
    got = run_case(case)
    assert compare(case, got), f"expected {case['expect']!r}, got {got!r}"
