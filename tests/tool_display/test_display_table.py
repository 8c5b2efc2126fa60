"""The display table and shell labels are data, read once and checked on load."""

from __future__ import annotations

import pytest

from clawharness.errors import ClawHarnessError
from clawharness.tool_display import infer_tool_meta_from_args, resolve_tool_display
from clawharness.tool_display.specs import (
    display_table,
    exec_labels,
    read_exec_labels,
    read_table,
)


def test_every_packaged_tool_has_an_emoji_and_a_title() -> None:
    table = display_table()
    assert "browser" in table.tools and "read" in table.tools
    for name, spec in table.tools.items():
        assert spec.emoji and spec.title, name
        for action, action_spec in spec.actions.items():
            assert action_spec.label, (name, action)


def test_an_action_without_a_label_is_shown_by_its_name() -> None:
    browser = display_table().tools["browser"]
    assert browser.actions["open"].label == "open"
    assert display_table().tools["nodes"].actions["camera_ptz"].label == "camera PTZ"


def test_empty_detail_keys_mean_no_detail_and_absent_keys_mean_the_fallback() -> None:
    assert display_table().tools["get_goal"].detail_keys == ()
    assert infer_tool_meta_from_args("get_goal", {"command": "x", "path": "a.txt"}) is None
    assert infer_tool_meta_from_args("unknown_tool", {"path": "a.txt"}) == "a.txt"


def test_a_numeric_path_segment_reaches_into_an_array() -> None:
    args = {"questions": [{"question": "Which branch?"}, {"question": "ignored"}]}
    assert infer_tool_meta_from_args("ask_user", args) == "Which branch?"


def test_several_keys_are_labelled_with_the_short_labels() -> None:
    detail = infer_tool_meta_from_args("unknown", {"nodeId": "n1", "requestId": "r2"})
    assert detail == "node n1, request r2"


def test_arguments_that_are_not_an_object_show_no_fields() -> None:
    assert infer_tool_meta_from_args("read", ["a.txt"]) is None
    assert resolve_tool_display(None).name == "tool"


def test_a_malformed_table_names_the_file_and_the_key() -> None:
    text = '[fallback]\nemoji = "x"\ndetail_keys = []\n[tools.read]\nemoji = "r"\ntitle = "Read"\ndetail_keys = "path"\n'
    with pytest.raises(ClawHarnessError, match=r"tools\.toml: tools\.read\.detail_keys must be a list"):
        read_table(text)


def test_shell_labels_come_from_the_label_file() -> None:
    labels = exec_labels()
    assert labels.git_subcommands["status"] == "check git status"
    assert labels.file_commands["ls"] == ("list files in", "list files")
    assert infer_tool_meta_from_args("exec", {"command": "git status"}, detail_mode="explain") == (
        "check git status"
    )


def test_malformed_shell_labels_name_the_section() -> None:
    with pytest.raises(ClawHarnessError, match=r"exec_labels\.toml: file_commands\.ls needs"):
        read_exec_labels('[file_commands]\nls = { alone = "x" }\n')
