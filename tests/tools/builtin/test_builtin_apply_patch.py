"""apply_patch: the Codex patch format, applied all or nothing inside the workspace."""

from __future__ import annotations

from pathlib import Path

import pytest

from clawharness.tools.builtin.patch import (
    AddFile,
    DeleteFile,
    PatchError,
    UpdateFile,
    apply_patch_to_workspace,
    parse_patch,
)


def patch(*body: str) -> str:
    return "\n".join(["*** Begin Patch", *body, "*** End Patch"])


def test_parse_all_operations() -> None:
    ops = parse_patch(patch(
        "*** Add File: new.txt", "+hello", "+world",
        "*** Delete File: old.txt",
        "*** Update File: src/app.py", "*** Move to: src/main.py",
        "@@ def main():", "-    return 1", "+    return 2",
    ))
    assert ops[0] == AddFile("new.txt", "hello\nworld\n")
    assert ops[1] == DeleteFile("old.txt")
    assert isinstance(ops[2], UpdateFile)
    assert ops[2].move_to == "src/main.py"
    chunk = ops[2].chunks[0]
    assert chunk.context == "def main():"
    assert chunk.old_lines == ("    return 1",)
    assert chunk.new_lines == ("    return 2",)


@pytest.mark.parametrize("bad", [
    "no envelope",
    "*** Begin Patch\n*** Add File: x\n+1",
    patch("*** Frobnicate File: x"),
    patch("*** Update File: x"),
    patch("*** Update File: x", "@@", "?weird line"),
])
def test_malformed_patches_are_refused(bad: str) -> None:
    with pytest.raises(PatchError):
        parse_patch(bad)


def test_add_update_delete_move(tmp_path: Path) -> None:
    (tmp_path / "app.py").write_text("def main():\n    x = 1\n    return x\n")
    (tmp_path / "gone.txt").write_text("bye\n")
    (tmp_path / "old.txt").write_text("keep me\nchange me\n")
    result = apply_patch_to_workspace(str(tmp_path), patch(
        "*** Add File: pkg/new.txt", "+fresh",
        "*** Update File: app.py",
        "@@ def main():",
        "-    x = 1",
        "+    x = 2",
        "     return x",
        "*** Delete File: gone.txt",
        "*** Update File: old.txt",
        "*** Move to: moved/new_name.txt",
        "@@",
        " keep me",
        "-change me",
        "+changed",
    ))
    assert (tmp_path / "pkg/new.txt").read_text() == "fresh\n"
    assert (tmp_path / "app.py").read_text() == "def main():\n    x = 2\n    return x\n"
    assert not (tmp_path / "gone.txt").exists()
    assert not (tmp_path / "old.txt").exists()
    assert (tmp_path / "moved/new_name.txt").read_text() == "keep me\nchanged\n"
    assert result["details"] == {"added": ["pkg/new.txt"],
                                 "modified": ["app.py", "moved/new_name.txt"],
                                 "deleted": ["gone.txt"]}
    assert result["content"][0]["text"].startswith("Success. Updated the following files:")


def test_several_hunks_and_end_of_file(tmp_path: Path) -> None:
    (tmp_path / "f.txt").write_text("a\nb\nc\nd\ne\nb\n")
    apply_patch_to_workspace(str(tmp_path), patch(
        "*** Update File: f.txt",
        "@@",
        " a",
        "-b",
        "+B",
        "@@",
        " e",
        "-b",
        "+END",
        "*** End of File",
    ))
    assert (tmp_path / "f.txt").read_text() == "a\nB\nc\nd\ne\nEND\n"


def test_whitespace_differences_are_tolerated(tmp_path: Path) -> None:
    (tmp_path / "f.py").write_text("x = 1   \ny = \u201cq\u201d\n")
    apply_patch_to_workspace(str(tmp_path), patch(
        "*** Update File: f.py", "@@", "-x = 1", "+x = 3", ' y = "q"'))
    # as in Codex, the matched lines are replaced by the hunk's own (context included)
    assert (tmp_path / "f.py").read_text() == 'x = 3\ny = "q"\n'


def test_a_misfit_hunk_changes_nothing(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("one\n")
    (tmp_path / "b.txt").write_text("two\n")
    with pytest.raises(PatchError, match="could not find the expected lines"):
        apply_patch_to_workspace(str(tmp_path), patch(
            "*** Update File: a.txt", "@@", "-one", "+ONE",
            "*** Update File: b.txt", "@@", "-three", "+THREE",
        ))
    assert (tmp_path / "a.txt").read_text() == "one\n"
    assert (tmp_path / "b.txt").read_text() == "two\n"


def test_updating_a_missing_file_is_refused(tmp_path: Path) -> None:
    with pytest.raises(PatchError, match="file not found"):
        apply_patch_to_workspace(str(tmp_path), patch(
            "*** Update File: nope.txt", "@@", "-x", "+y"))
