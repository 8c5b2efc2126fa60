"""Compact details for tool calls (`infer_tool_meta_from_args`)."""

from __future__ import annotations

from clawharness.tool_display import infer_tool_meta_from_args, resolve_tool_display


def test_shell_summary_names_the_command_and_quotes_the_raw_line() -> None:
    detail = infer_tool_meta_from_args("exec", {"command": "cd /srv && git status | grep x"})
    assert detail == 'check git status -> search "x" (in /srv), `cd /srv && git status | grep x`'


def test_explain_mode_shows_only_the_summary() -> None:
    detail = infer_tool_meta_from_args("exec", {"command": "git status"}, detail_mode="explain")
    assert detail == "check git status"


def test_shell_wrapper_is_unwrapped() -> None:
    detail = infer_tool_meta_from_args("bash", {"command": "bash -lc 'git status'"})
    assert detail == "check git status, `git status`"


def test_secrets_in_commands_are_redacted() -> None:
    detail = infer_tool_meta_from_args(
        "my_tool", {"command": "deploy --token abcdefghijklmnopqrstuvwxyz"}
    )
    assert detail is not None
    assert "abcdefghijklmnopqrstuvwxyz" not in detail


def test_home_directory_is_shortened_when_given() -> None:
    detail = infer_tool_meta_from_args("read", {"path": "/home/ada/notes.md"}, home_dir="/home/ada")
    assert detail == "from ~/notes.md"
    assert infer_tool_meta_from_args("read", {"path": "/home/ada/notes.md"}) == (
        "from /home/ada/notes.md"
    )


def test_read_with_limit_only_names_the_first_lines() -> None:
    assert (
        infer_tool_meta_from_args("read", {"path": "a.txt", "limit": 1}) == "first 1 line of a.txt"
    )


def test_web_search_lists_three_queries_then_an_ellipsis() -> None:
    detail = infer_tool_meta_from_args("web_search", {"queries": ["a", "b", "c", "d"], "count": 3})
    assert detail == 'for "a", "b", "c"… (top 3)'


def test_tool_search_bridge_call_shows_the_called_tools_query() -> None:
    code = 'openclaw.tools.call("web_search", {query: "cats"})'
    assert infer_tool_meta_from_args("tool_search_code", {"code": code}) == "query cats"


def test_plan_progress_tools_have_no_detail() -> None:
    assert infer_tool_meta_from_args("update_plan", {"path": "a.txt"}) is None


def test_display_uses_the_tool_spec_and_action_verb() -> None:
    display = resolve_tool_display("browser", {"action": "open", "targetUrl": "https://a.test"})
    assert (display.emoji, display.title, display.verb, display.detail) == (
        "🌐",
        "Browser",
        "open",
        "https://a.test",
    )


def test_unknown_tool_gets_a_title_from_its_name() -> None:
    assert resolve_tool_display("my_custom_tool").title == "My Custom Tool"
