"""Approval gates: scripted answers for tests, the terminal prompt, and no terminal."""

from __future__ import annotations

import io

from rich.console import Console

from clawharness.harness.capabilities import ApprovalRequest
from clawharness.tools.approvals import ScriptedApprovalGate, TerminalApprovalGate


def request(tool: str = "exec", command: str = "rm -rf build [x]") -> ApprovalRequest:
    return ApprovalRequest(run_id="r", session_key="s", tool_name=tool,
                           arguments={"command": command}, reason="needs a yes", cwd="/ws",
                           tool_call_id="c1")


async def test_scripted_answers_in_order_then_none() -> None:
    gate = ScriptedApprovalGate(["allow-once", "deny"])
    assert await gate.decide(request()) == "allow-once"
    assert await gate.decide(request()) == "deny"
    assert await gate.decide(request()) is None
    assert len(gate.requests) == 3
    assert gate.requests[0].tool_call_id == "c1"


async def test_scripted_answers_by_tool() -> None:
    gate = ScriptedApprovalGate({"exec": "allow-always"})
    assert await gate.decide(request("exec")) == "allow-always"
    assert await gate.decide(request("write")) is None


async def test_terminal_gate_without_a_terminal_answers_none() -> None:
    gate = TerminalApprovalGate(stdin=io.StringIO("o\n"))  # a StringIO is not a TTY
    assert await gate.decide(request()) is None


async def test_terminal_gate_asks_and_maps_answers() -> None:
    for typed, expected in (("o\n", "allow-once"), ("always\n", "allow-always"),
                            ("d\n", "deny"), ("\n", "deny"), ("???\n", "deny")):
        out = io.StringIO()
        gate = TerminalApprovalGate(
            console=Console(file=out, force_terminal=False, width=100),
            stdin=io.StringIO(typed),
            is_interactive=lambda: True,
        )
        assert await gate.decide(request()) == expected
        shown = out.getvalue()
        assert "rm -rf build [x]" in shown and "needs a yes" in shown
        assert "[o]nce" in shown


async def test_terminal_gate_end_of_input_is_no_answer() -> None:
    gate = TerminalApprovalGate(console=Console(file=io.StringIO()), stdin=io.StringIO(""),
                                is_interactive=lambda: True)
    assert await gate.decide(request()) is None
