"""Tool groups, replay safety, result errors, MCP names, bind specs, usage, session keys."""

from __future__ import annotations

import pytest

from clawharness.names.bind_specs import split_sandbox_bind_spec
from clawharness.names.mcp_names import assign_mcp_catalog_safe_server_names
from clawharness.names.tool_groups import TOOL_GROUPS, expand_tool_groups
from clawharness.tools.replay import is_agent_tool_replay_safe, is_replay_safe_tool_call
from clawharness.tools.results import (
    extract_tool_error_message,
    format_tool_progress_output,
    is_tool_result_error,
)


def test_groups_expand_with_aliases_and_without_duplicates() -> None:
    assert expand_tool_groups(["bash", "group:web", "WEB_SEARCH", "cron", "group:nope"]) == [
        "exec",
        "web_search",
        "web_fetch",
        "x_search",
        "automations",
        "group:nope",
    ]


def test_group_table_cannot_be_mutated() -> None:
    with pytest.raises(TypeError):
        TOOL_GROUPS["group:fs"] = ("rm",)  # type: ignore[index]


def test_shell_calls_are_never_replay_safe() -> None:
    assert not is_replay_safe_tool_call("exec", {"command": "ls"})
    assert is_replay_safe_tool_call("message", {"action": "thread-list"})
    assert not is_replay_safe_tool_call("message", {"action": "send"})


def test_owner_can_veto_replay_of_a_listed_tool() -> None:
    tool = {"name": "read"}
    assert is_agent_tool_replay_safe(tool)
    assert not is_agent_tool_replay_safe(tool, lambda _: False)


def test_nonzero_exit_code_is_an_error_unless_completed() -> None:
    assert is_tool_result_error({"details": {"exitCode": 2}})
    assert not is_tool_result_error({"details": {"status": "completed", "exitCode": 2}})


def test_long_error_message_is_cut_to_400_units() -> None:
    message = extract_tool_error_message({"details": {"status": "failed", "error": "x" * 450}})
    assert message == "x" * 400 + "…"


def test_progress_output_is_truncated_with_a_marker() -> None:
    assert format_tool_progress_output("abcdef", max_chars=3) == "abc\n...(truncated)..."
    assert format_tool_progress_output(" \r\n ") is None


def test_mcp_names_are_capped_and_deduplicated_case_insensitively() -> None:
    names = assign_mcp_catalog_safe_server_names(["a" * 35, "A" * 35, "a" * 35])
    assert type(names) is dict
    assert list(names.items()) == [
        ("a" * 35, "a" * 28 + "-3"),
        ("A" * 35, "A" * 28 + "-2"),
    ]


def test_bind_spec_keeps_windows_drive_in_host_path() -> None:
    spec = split_sandbox_bind_spec("C:\\data:/data:ro")
    assert spec is not None
    assert (spec.host, spec.container, spec.options) == ("C:\\data", "/data", "ro")
    assert split_sandbox_bind_spec("no-separator") is None


