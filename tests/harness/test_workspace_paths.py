"""Paths a model gives a tool resolve inside the workspace or are refused by name."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from clawharness.errors import WorkspacePathEscapeError
from clawharness.harness.workspace import display_path, resolve_workspace_path


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    (root / "sub").mkdir(parents=True)
    (root / "sub" / "f.txt").write_text("x")
    (tmp_path / "outside.txt").write_text("secret")
    return root


def test_relative_and_absolute_paths_inside_resolve(workspace: Path) -> None:
    real = Path(os.path.realpath(workspace))
    assert resolve_workspace_path(workspace, "sub/f.txt") == real / "sub" / "f.txt"
    assert resolve_workspace_path(workspace, str(workspace / "sub" / "f.txt")) == (
        real / "sub" / "f.txt")
    assert resolve_workspace_path(workspace, "sub/../sub/new.txt") == real / "sub" / "new.txt"
    assert resolve_workspace_path(workspace, ".") == real


@pytest.mark.parametrize("path", ["../outside.txt", "sub/../../outside.txt", ".."])
def test_dotdot_escape_is_refused_by_name(workspace: Path, path: str) -> None:
    with pytest.raises(WorkspacePathEscapeError) as caught:
        resolve_workspace_path(workspace, path)
    assert repr(path) in str(caught.value)


def test_absolute_path_outside_is_refused(workspace: Path) -> None:
    with pytest.raises(WorkspacePathEscapeError, match="outside the workspace"):
        resolve_workspace_path(workspace, "/etc/passwd")


def test_symlink_leading_outside_is_refused(workspace: Path, tmp_path: Path) -> None:
    (workspace / "link").symlink_to(tmp_path / "outside.txt")
    (workspace / "dirlink").symlink_to(tmp_path)
    with pytest.raises(WorkspacePathEscapeError, match="symlink"):
        resolve_workspace_path(workspace, "link")
    with pytest.raises(WorkspacePathEscapeError, match="symlink"):
        resolve_workspace_path(workspace, "dirlink/new-file.txt")


def test_symlink_inside_is_fine(workspace: Path) -> None:
    (workspace / "alias").symlink_to(workspace / "sub")
    assert resolve_workspace_path(workspace, "alias/f.txt").read_text() == "x"


def test_workspace_reached_through_a_symlink(workspace: Path, tmp_path: Path) -> None:
    via = tmp_path / "via"
    via.symlink_to(workspace)
    assert resolve_workspace_path(via, str(via / "sub" / "f.txt")).read_text() == "x"


def test_display_path_is_relative(workspace: Path) -> None:
    assert display_path(workspace, resolve_workspace_path(workspace, "sub/f.txt")) == "sub/f.txt"
