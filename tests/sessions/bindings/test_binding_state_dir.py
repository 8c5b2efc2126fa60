"""Rule 6 (seed 000, ACPX): moving a harness's default state location."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from clawharness.sessions.bindings import forget_state_dir_decisions, resolve_state_dir


@pytest.fixture(autouse=True)
def _fresh_process() -> Iterator[None]:
    forget_state_dir_decisions()
    yield
    forget_state_dir_decisions()


def seed_old(tmp_path: Path) -> Path:
    old = tmp_path / "workspace" / "state"
    (old / "sessions").mkdir(parents=True)
    (old / "sessions" / "s-1.json").write_text('{"id": "s-1"}')
    return old


def test_migrates_when_the_new_default_is_empty(tmp_path: Path) -> None:
    old, new = seed_old(tmp_path), tmp_path / "acpx"
    new.mkdir()  # present but empty counts as empty
    got = resolve_state_dir(explicit=None, old_default=old, new_default=new, label="acpx")
    assert got.path == new and got.reason == "migrated"
    assert (new / "sessions" / "s-1.json").read_text() == '{"id": "s-1"}'
    assert not old.exists()


def test_an_explicit_directory_is_never_relocated(tmp_path: Path) -> None:
    old, explicit = seed_old(tmp_path), tmp_path / "custom"
    got = resolve_state_dir(explicit=str(explicit), old_default=old,
                            new_default=tmp_path / "acpx")
    assert got.path == explicit and got.reason == "explicit"
    assert (old / "sessions" / "s-1.json").exists()
    assert not (tmp_path / "acpx").exists()


def test_a_non_empty_new_default_is_not_overwritten(tmp_path: Path) -> None:
    old, new = seed_old(tmp_path), tmp_path / "acpx"
    new.mkdir()
    (new / "mine.json").write_text("{}")
    got = resolve_state_dir(explicit=None, old_default=old, new_default=new)
    assert got.path == new and got.reason == "old-kept" and got.warning
    assert (old / "sessions" / "s-1.json").exists()
    assert sorted(p.name for p in new.iterdir()) == ["mine.json"]


def test_nothing_to_migrate_uses_the_new_default(tmp_path: Path) -> None:
    got = resolve_state_dir(explicit=None, old_default=tmp_path / "none",
                            new_default=tmp_path / "acpx")
    assert got.path == tmp_path / "acpx" and got.reason == "new-default"


@pytest.mark.skipif(os.geteuid() == 0, reason="root ignores directory permissions")
def test_failed_adoption_warns_and_keeps_the_old_location_for_the_process(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    old = seed_old(tmp_path)
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    try:
        _assert_retained(old, locked / "acpx", caplog)
    finally:
        locked.chmod(0o700)


def test_failed_adoption_keeps_the_old_location_even_as_root(
        tmp_path: Path, caplog: pytest.LogCaptureFixture,
        monkeypatch: pytest.MonkeyPatch) -> None:
    old = seed_old(tmp_path)

    def refuse(*_args: object) -> None:
        raise PermissionError("read-only file system")

    monkeypatch.setattr("clawharness.sessions.bindings.state_dir.os.replace", refuse)
    monkeypatch.setattr("clawharness.sessions.bindings.state_dir.shutil.copytree", refuse)
    _assert_retained(old, tmp_path / "acpx", caplog)


def _assert_retained(old: Path, new: Path, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level("WARNING", logger="clawharness.sessions.bindings"):
        got = resolve_state_dir(explicit=None, old_default=old, new_default=new, label="acpx")
    assert got.path == old and got.reason == "retained-old"
    assert "keeping" in (got.warning or "") and "could not move state" in caplog.text
    assert (old / "sessions" / "s-1.json").exists()
    # The rest of the process keeps using the old location without retrying.
    again = resolve_state_dir(explicit=None, old_default=old, new_default=new)
    assert again.path == old and again.reason == "retained-old"
