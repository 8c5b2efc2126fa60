"""Approval gates: scripted answers for tests, the terminal prompt, and no terminal."""

from __future__ import annotations

import io

from rich.console import Console

from clawharness.harness.capabilities import ApprovalRequest, ApprovalSubject
from clawharness.tools.approvals import ScriptedApprovalGate, TerminalApprovalGate

GRANTABLE = ApprovalSubject(("/usr/bin/rm",), frozenset({"exec-program:/usr/bin/rm"}),
                            "/usr/bin/rm")


def request(tool: str = "exec", command: str = "rm -rf build [x]",
            subject: ApprovalSubject = GRANTABLE) -> ApprovalRequest:
    return ApprovalRequest(run_id="r", session_key="s", tool_name=tool,
                           arguments={"command": command}, reason="needs a yes", cwd="/ws",
                           tool_call_id="c1", subject=subject)


def ask_on_terminal(typed: str, req: ApprovalRequest) -> tuple[object, str]:
    """The terminal gate's answer to `req` with `typed` at the prompt, and what it showed."""
    import asyncio

    out = io.StringIO()
    # a terminal console without colour: every escape character in the output is the
    # command's own
    gate = TerminalApprovalGate(console=Console(file=out, force_terminal=True, width=120,
                                                color_system=None),
                                stdin=io.StringIO(typed), is_interactive=lambda: True)
    return asyncio.run(gate.decide(req)), out.getvalue()


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
        assert "programs: /usr/bin/rm" in shown
        assert "[a]lways for this session (/usr/bin/rm)" in shown


def test_the_prompt_shows_escape_sequences_instead_of_obeying_them() -> None:
    # an erase-line sequence and a right-to-left override would let a command hide
    # itself behind harmless-looking text on the operator's screen
    command = "rm -rf ~/.ssh \x1b[2K\x1b[1Gls -la \u202etxt.exe"
    answer, shown = ask_on_terminal("o\n", request(command=command))
    assert answer == "allow-once"
    assert "\x1b" not in shown and "\u202e" not in shown
    assert "rm -rf ~/.ssh \\x1b[2K\\x1b[1Gls -la \\u202etxt.exe" in shown


def test_always_is_not_offered_when_it_could_cover_only_this_call() -> None:
    once_only = ApprovalSubject(("/usr/bin/rm",))  # e.g. tools.exec.ask is "always"
    answer, shown = ask_on_terminal("a\n", request(subject=once_only))
    assert answer == "allow-once"
    assert "[a]lways" not in shown


def test_a_non_exec_call_shows_its_arguments_one_per_line() -> None:
    req = ApprovalRequest(run_id="r", session_key="s", tool_name="write",
                          arguments={"path": "notes.md", "content": "x" * 5000},
                          reason="tools.write needs approval", cwd="/ws")
    _answer, shown = ask_on_terminal("d\n", req)
    assert "write wants to call" in shown
    assert '"path": "notes.md"' in shown
    assert "more characters]" in shown  # 5,000 characters are not all printed


async def test_terminal_gate_end_of_input_is_no_answer() -> None:
    gate = TerminalApprovalGate(console=Console(file=io.StringIO()), stdin=io.StringIO(""),
                                is_interactive=lambda: True)
    assert await gate.decide(request()) is None
