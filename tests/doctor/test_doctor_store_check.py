"""`check_store`: doctor opens the store and reports one it cannot read, changing nothing."""

from __future__ import annotations

import asyncio
import hashlib
import os
from pathlib import Path

import pytest

from clawharness.doctor import check_store
from clawharness.store import NewEntry, SessionRecord, open_store


def make_store(path: Path, sessions: int = 40) -> None:
    async def fill() -> None:
        store = open_store(path)
        await store.open()
        try:
            for i in range(sessions):
                key = f"agent:main:s{i}"
                await store.create_session(SessionRecord(key=key, session_id=f"sid{i}",
                                                         agent_id="main"))
                await store.append_entries(key, f"sid{i}", [NewEntry(
                    role="user", content="x" * 2000, text="x" * 2000)])
        finally:
            await store.close()

    asyncio.run(fill())


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_a_whole_store_and_a_missing_one_are_no_problem(tmp_path: Path) -> None:
    path = tmp_path / "clawharness.db"
    assert check_store(str(path)) == []
    assert not path.exists()  # doctor creates no store
    make_store(path)
    assert check_store(str(path)) == []
    assert check_store(f"sqlite:///{path}") == []


def test_a_store_with_damaged_pages_is_corrupt_and_left_as_it_was(tmp_path: Path) -> None:
    path = tmp_path / "clawharness.db"
    make_store(path)
    with path.open("r+b") as f:  # the header stays, pages in the middle are overwritten
        f.seek(3 * 4096)
        f.write(os.urandom(6 * 4096))
    before = digest(path)
    [finding] = check_store(str(path))
    assert (finding.code, finding.severity, finding.fixable) == ("store-corrupt", "error", False)
    assert str(path) in finding.message and "backup" in finding.message
    assert digest(path) == before


@pytest.mark.parametrize("content", [b"", b"not a database at all" * 20])
def test_an_empty_or_foreign_file_is_corrupt(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "clawharness.db"
    path.write_bytes(content)
    [finding] = check_store(str(path))
    assert finding.code == "store-corrupt"
    assert path.read_bytes() == content


def test_a_store_path_that_cannot_be_read_says_so(tmp_path: Path) -> None:
    path = tmp_path / "clawharness.db"
    path.mkdir()  # root reads any file, so a directory stands in for an unreadable one
    [finding] = check_store(str(path))
    assert finding.code == "store-unusable" and "cannot read" in finding.message


def test_a_postgres_store_that_does_not_answer_is_unavailable_without_its_password() -> None:
    [finding] = check_store("postgresql://nobody:hunter2-secret@127.0.0.1:1/none")
    assert (finding.code, finding.severity) == ("store-unavailable", "error")
    assert "hunter2-secret" not in finding.message and "hunter2-secret" not in finding.path
