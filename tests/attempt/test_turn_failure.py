"""`describe_failure`: a turn that did not end ok says what, where and what to do."""

from __future__ import annotations

from clawharness.attempt.failure import describe_failure
from clawharness.harness.types import AttemptTerminal, ResolvedModel

MODEL = ResolvedModel("local", "m", base_url="http://127.0.0.1:8123/v1")
URL = "http://127.0.0.1:8123/v1"


def test_an_ok_turn_has_no_failure() -> None:
    assert describe_failure(AttemptTerminal.ok(), model=MODEL, url=URL, runtime="openclaw",
                            builtin=True, timeout_seconds=30) is None


def test_a_builtin_timeout_names_budget_provider_and_url() -> None:
    failure = describe_failure(AttemptTerminal("timeout", source="run_budget"), model=MODEL,
                               url=URL, runtime="openclaw", builtin=True, timeout_seconds=30)
    assert failure is not None and failure.type == "timeout"
    assert failure.message == ('the turn timed out after 30 s waiting for provider "local" '
                               f"at {URL} (model m)")
    assert failure.details["url"] == URL and failure.details["model"] == "local/m"
    assert "--timeout" in failure.details["hint"]


def test_a_plugin_runtime_timeout_names_the_runtime_not_a_url() -> None:
    failure = describe_failure(AttemptTerminal("timeout"), model=MODEL, url=URL,
                               runtime="codex", builtin=False, timeout_seconds=None)
    assert failure is not None
    assert failure.message == "the turn timed out in runtime codex (model local/m)"
    assert "url" not in failure.details and failure.details["runtime"] == "codex"


def test_harness_details_win_and_the_host_fills_in_the_rest() -> None:
    terminal = AttemptTerminal("failed", error="boom", details={"type": "auth", "hint": "h"})
    failure = describe_failure(terminal, model=MODEL, url=URL, runtime="openclaw",
                               builtin=True, timeout_seconds=None)
    assert failure is not None
    assert (failure.type, failure.message) == ("auth", "boom")
    assert failure.details == {"type": "auth", "hint": "h", "provider": "local",
                               "model": "local/m", "url": URL, "runtime": "openclaw"}


def test_a_failure_without_text_still_says_where() -> None:
    failure = describe_failure(AttemptTerminal("failed"), model=MODEL, url=None,
                               runtime="acp", builtin=False, timeout_seconds=None)
    assert failure is not None and failure.type == "turn_failed"
    assert failure.message == "the turn failed in runtime acp (model local/m)"
    aborted = describe_failure(AttemptTerminal("aborted", error="aborted"), model=MODEL,
                               url=None, runtime="openclaw", builtin=True, timeout_seconds=None)
    assert aborted is not None and aborted.type == "aborted"


def test_a_timeout_while_a_tool_runs_names_the_tool_not_the_provider() -> None:
    terminal = AttemptTerminal("timeout", source="runtime", phase="tool_execution",
                               details={"tool": "exec"})
    failure = describe_failure(terminal, model=MODEL, url=URL, runtime="openclaw",
                               builtin=True, timeout_seconds=30)
    assert failure is not None and failure.type == "timeout"
    assert failure.message.startswith('the turn timed out after 30 s while tool "exec" was running')
    assert "provider" not in failure.message and "model server" not in failure.details["hint"]
    assert failure.details["phase"] == "tool_execution" and failure.details["tool"] == "exec"
    plugin = describe_failure(AttemptTerminal("timeout", phase="tool_execution"), model=MODEL,
                              url=None, runtime="codex", builtin=False, timeout_seconds=None)
    assert plugin is not None and plugin.message.startswith("the turn timed out while a tool")
