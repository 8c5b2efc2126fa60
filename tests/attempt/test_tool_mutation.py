"""The mutation classifier: mutating calls, read-only shells, fingerprints, file targets."""

from __future__ import annotations

import pytest

from clawharness.attempt.mutation import (
    FileTarget,
    ToolActionRef,
    build_apply_patch_file_targets,
    build_tool_action_fingerprint,
    build_tool_file_target,
    build_tool_mutation_state,
    is_mutating_tool_call,
    is_plain_read_only_shell_command,
    is_replay_safe_tool_call,
    is_same_tool_mutation_action,
)


@pytest.mark.parametrize(
    "tool",
    ["write", "edit", "apply_patch", "sessions_spawn", "sessions_send", "conversations_send",
     "conversations_turn", "create_goal", "update_goal"],
)
def test_always_mutating_tools_mutate_whatever_their_arguments(tool: str) -> None:
    assert is_mutating_tool_call(tool, {})
    assert is_mutating_tool_call(tool.upper(), None)


@pytest.mark.parametrize(
    "command",
    ["ls -la", "cat README.md", "grep -n foo src/x.py", "head -n 5 a.txt", "pwd",
     "rg needle src", "stat a", "tail -f log", "wc -l a", "sed -n 10p file.txt",
     "sed -n '1,20p' file.txt", "gh pr view 12", "gh issue list", "gh search code foo"],
)
def test_plain_read_only_shell_commands_are_not_mutating(command: str) -> None:
    assert is_plain_read_only_shell_command(command)
    assert not is_mutating_tool_call("exec", {"command": command})
    assert not is_mutating_tool_call("bash", {"cmd": command})


@pytest.mark.parametrize(
    "command",
    ["rm -rf x", "ls; rm x", "cat a | tee b", "ls > out", "echo $HOME", "ls *.py",
     "cat `whoami`", "sed -i s/a/b/ f", "sed -n -e 'w /tmp/x' f", "sed -n 1d f",
     "rg --pre ./evil x", "rg --pre=./evil x", "gh pr merge 1", "gh pr view --web 1",
     "gh repo create", "python -c 'print(1)'", "ls 'unterminated", "cat a\\ b"],
)
def test_anything_else_through_a_shell_mutates(command: str) -> None:
    assert not is_plain_read_only_shell_command(command)
    assert is_mutating_tool_call("exec", {"command": command})


def test_exec_without_a_command_fails_closed() -> None:
    assert is_mutating_tool_call("exec", {})
    assert not is_replay_safe_tool_call("exec", {"command": "ls"})


@pytest.mark.parametrize(
    ("action", "mutating"),
    [("write", True), ("send_keys", True), ("submit", True), ("paste", True), ("kill", True),
     ("clear", True), ("remove", True), ("poll", False), ("log", False), (None, False)],
)
def test_process_mutates_only_for_its_mutating_actions(action: str | None, mutating: bool) -> None:
    args = {"action": action} if action else {}
    assert is_mutating_tool_call("process", args) is mutating


def test_message_mutates_unless_the_action_is_a_known_read() -> None:
    assert is_mutating_tool_call("message", {"action": "send"})
    assert is_mutating_tool_call("message", {})
    assert is_mutating_tool_call("message", {"action": "some-future-action"})
    assert not is_mutating_tool_call("message", {"action": "read"})
    assert not is_mutating_tool_call("message", {"action": "channel-list"})
    assert is_replay_safe_tool_call("message", {"action": "read"})


def test_actions_tools_and_scheduler_mutate_unless_read_only() -> None:
    assert is_mutating_tool_call("github_actions", {"action": "create"})
    assert is_mutating_tool_call("github_actions", {})
    assert not is_mutating_tool_call("github_actions", {"action": "list"})
    assert not is_mutating_tool_call("cron", {"action": "status"})
    assert is_mutating_tool_call("automations", {"action": "add"})
    assert not is_mutating_tool_call("canvas", {"action": "get"})


def test_send_like_names_mutate_and_other_tools_do_not() -> None:
    assert is_mutating_tool_call("message_slack", {})
    assert is_mutating_tool_call("email_send", {})
    assert not is_mutating_tool_call("read", {"path": "a"})
    assert not is_mutating_tool_call("web_search", {"query": "x"})


def test_fingerprint_is_lowercased_and_keyed_by_stable_targets() -> None:
    fp = build_tool_action_fingerprint(
        "Message", {"action": "Send", "to": "Channel:A", "messageId": 42, "model": "X"}
    )
    assert fp == "tool=message|action=send|to=channel:a|messageid=42|model=x"
    assert build_tool_action_fingerprint("edit", {"file_path": " /Tmp/A.txt "}) == (
        "tool=edit|path=/tmp/a.txt"
    )
    assert build_tool_action_fingerprint("read", {"path": "a"}) is None


def test_meta_is_used_only_without_a_stable_key() -> None:
    assert build_tool_action_fingerprint("sessions_spawn", {"task": "x"}, "Spawn  Helper") == (
        "tool=sessions_spawn|meta=spawn helper"
    )
    assert build_tool_action_fingerprint("write", {"path": "a"}, "12 chars") == "tool=write|path=a"


def test_file_target_for_edit_read_and_write_only() -> None:
    assert build_tool_file_target("edit", {"path": "src/A.py"}) == FileTarget("src/A.py")
    assert build_tool_file_target("read", {"filePath": "b"}) == FileTarget("b")
    assert build_tool_file_target("write", {"path": "n", "oldPath": "o"}) == FileTarget("n", "o")
    assert build_tool_file_target("exec", {"path": "a"}) is None
    state = build_tool_mutation_state("edit", {"path": "a"})
    assert state.mutating_action and state.file_target == FileTarget("a")
    assert not state.replay_safe


def test_apply_patch_targets_are_added_and_updated_paths() -> None:
    patch = (
        "*** Begin Patch\n*** Add File: docs/new.md\n+hello\n"
        "*** Update File: src/app.py\n@@\n-a\n+b\n*** End Patch"
    )
    assert build_apply_patch_file_targets("apply_patch", {"input": patch}) == [
        FileTarget("docs/new.md"), FileTarget("src/app.py")
    ]


def test_apply_patch_that_deletes_or_moves_has_no_file_target() -> None:
    delete = "*** Begin Patch\n*** Delete File: old.py\n*** End Patch"
    move = "*** Begin Patch\n*** Update File: a.py\n*** Move to: b.py\n@@\n-x\n+y\n*** End Patch"
    assert build_apply_patch_file_targets("apply_patch", {"input": delete}) is None
    assert build_apply_patch_file_targets("apply_patch", move) is None


def test_edit_and_write_on_the_same_path_are_the_same_action() -> None:
    edit = ToolActionRef("edit", None, "tool=edit|path=a", FileTarget("a"))
    write = ToolActionRef("write", None, "tool=write|path=a", FileTarget("a"))
    other = ToolActionRef("write", None, "tool=write|path=b", FileTarget("b"))
    assert is_same_tool_mutation_action(edit, write)
    assert not is_same_tool_mutation_action(edit, other)


def test_file_identity_is_case_sensitive_except_on_windows() -> None:
    lower = ToolActionRef("edit", None, "tool=edit|path=a.txt", FileTarget("a.txt"))
    upper = ToolActionRef("write", None, "tool=write|path=a.txt", FileTarget("A.txt"))
    assert not is_same_tool_mutation_action(lower, upper, platform="linux")
    assert is_same_tool_mutation_action(lower, upper, platform="win32")


def test_a_fingerprinted_action_matches_only_an_equal_fingerprint() -> None:
    failed = ToolActionRef("message", None, "tool=message|action=send|to=a")
    assert not is_same_tool_mutation_action(failed, ToolActionRef("message"))
    assert not is_same_tool_mutation_action(
        failed, ToolActionRef("message", None, "tool=message|action=send|to=b")
    )
    assert is_same_tool_mutation_action(
        failed, ToolActionRef("message", None, "tool=message|action=send|to=a")
    )
    assert is_same_tool_mutation_action(ToolActionRef("x", "m"), ToolActionRef("x", "m"))
    assert not is_same_tool_mutation_action(ToolActionRef("x", "m"), ToolActionRef("x", "n"))


def test_a_call_safe_reader_by_its_listed_name_is_classified_as_by_any_spelling() -> None:
    # the listed names answer at once; a spelling that must be normalized first takes the
    # long way through the classifier, and both agree whatever the arguments
    from clawharness._json import JsonValue
    from clawharness.tools.replay import _CALL_SAFE_TOOL_NAMES

    shapes: list[JsonValue] = [None, {}, {"action": "send"}, {"action": "delete"},
                               {"command": "rm -rf /"}, {"model": "x"}, "text", [1]]
    for name in sorted(_CALL_SAFE_TOOL_NAMES):
        for args in shapes:
            for spelling in (f" {name.upper()} ", f"\t{name}"):
                assert is_mutating_tool_call(name, args) is False
                assert is_mutating_tool_call(spelling, args) is False
                assert is_replay_safe_tool_call(name, args) is True
                assert is_replay_safe_tool_call(spelling, args) is True
