"""The SQLite store's file: refusing what is not a store, creating a new one atomically.

A new store is built complete (WAL mode, current schema) in a private file beside the
target and hard-linked into place, which fails if another process got there first. So a
store file is never seen half-made, and an existing empty file is never "a new store":
it is a truncated one, and opening it is refused with the file left as it was.
"""

from __future__ import annotations

import os
import secrets
import sqlite3
from collections.abc import Callable, Mapping
from pathlib import Path

from clawharness.errors import StoreCorruptError, StoreError

__all__ = ["CORRUPT_HINT", "HEADER", "check_header", "check_tables", "create_if_absent",
           "migrate", "verify_file"]

#: `quick_check` lines quoted in the error (a badly damaged file reports thousands)
_SHOWN_PROBLEMS = 3

HEADER = b"SQLite format 3\x00"
#: what to do about a corrupt store file (it is never changed or replaced by clawharness)
CORRUPT_HINT = ("the file was left as it was: restore it from a backup, or move it (and its "
                "-wal, -shm and -search files) aside to start a new, empty store at this path")


def check_header(path: Path) -> None:
    """Refuse a file that is not SQLite before sqlite touches it, so it stays as it was."""
    try:
        with path.open("rb") as f:
            head = f.read(100)
    except FileNotFoundError:
        return
    except OSError as exc:
        raise StoreError(f"{path}: cannot read the store file: {exc}") from exc
    if not head:
        wal = path.with_name(path.name + "-wal")
        beside = ""
        if wal.exists():
            beside = f" (a write-ahead log {wal.name} of {wal.stat().st_size} bytes is beside it)"
        raise StoreCorruptError(
            f"{path} is empty (0 bytes){beside}: a clawharness store is never empty, so this "
            "file was truncated or replaced. It was left untouched. Restore it from a backup, "
            "or move it aside to start a new, empty store at this path")
    if len(head) < 100 or not head.startswith(HEADER):
        error = StoreCorruptError(
            f"{path} is not a SQLite database (bad header); refusing to open or overwrite it"
        )
        error.hint = CORRUPT_HINT
        raise error


def migrate(conn: sqlite3.Connection, path: Path, target: int,
            migrations: Mapping[int, tuple[str, ...]]) -> None:
    """Bring the file to schema version `target` in one transaction."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        version = int(conn.execute("PRAGMA user_version").fetchone()[0])
        if version > target:
            raise StoreError(
                f"{path}: store schema version {version} is newer than this clawharness "
                f"supports ({target}); upgrade clawharness to open it"
            )
        if version == 0 and conn.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]:
            raise StoreError(f"{path}: a SQLite database that is not a clawharness store")
        for v in range(version + 1, target + 1):
            for stmt in migrations[v]:
                _apply(conn, stmt)
            conn.execute(f"PRAGMA user_version = {v}")
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise


def _apply(conn: sqlite3.Connection, stmt: str) -> None:
    """One migration statement. Like the tables' `IF NOT EXISTS`, an added column that is
    there already is no error (SQLite has no `ADD COLUMN IF NOT EXISTS`): a file whose
    version number went back (a test's older file made from a newer one) migrates on."""
    try:
        conn.execute(stmt)
    except sqlite3.OperationalError as exc:
        if not (stmt.startswith("ALTER TABLE") and " ADD COLUMN " in stmt
                and "duplicate column name" in str(exc)):
            raise


def create_if_absent(path: Path, init: Callable[[sqlite3.Connection], None]) -> None:
    """Make a new store at `path` with `init(conn)`, unless a file is already there.

    Several processes may race to create the same store: each builds its own private
    copy, the first link wins and the others drop theirs.
    """
    if os.path.lexists(path):
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    draft = path.with_name(f".{path.name}.{os.getpid()}-{secrets.token_hex(4)}.new")
    try:
        conn = sqlite3.connect(draft, isolation_level=None)
        try:
            init(conn)
        finally:
            conn.close()  # the last connection: the WAL is checkpointed into the file
        try:
            os.link(draft, path)
        except FileExistsError:
            pass  # another process made it first; theirs is as good as ours
        except OSError:
            # no hard links on this file system: a plain rename, if nobody made one meanwhile
            if not os.path.lexists(path):
                os.replace(draft, path)
    except (sqlite3.Error, OSError) as exc:
        raise StoreError(f"{path}: cannot create a new store file: {exc}") from exc
    finally:
        for suffix in ("", "-wal", "-shm", "-journal"):
            Path(f"{draft}{suffix}").unlink(missing_ok=True)


def _tables(conn: sqlite3.Connection) -> set[str]:
    return {str(row[0]) for row in conn.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table'")}


def check_tables(conn: sqlite3.Connection, path: Path, target: int,
                 migrations: Mapping[int, tuple[str, ...]]) -> None:
    """Refuse a store at `target` whose tables are not all there: damage that left the
    SQLite header intact (a store never drops one of its tables)."""
    fresh = sqlite3.connect(":memory:", isolation_level=None)
    try:
        migrate(fresh, Path(":memory:"), target, migrations)
        expected = _tables(fresh)
    finally:
        fresh.close()
    missing = sorted(expected - _tables(conn))
    if missing:
        error = StoreCorruptError(
            f"{path}: the store file is corrupt: its schema is damaged (missing "
            f"{', '.join(missing)})")
        error.hint = CORRUPT_HINT
        raise error


def _corrupt(message: str) -> StoreCorruptError:
    error = StoreCorruptError(message)
    error.hint = CORRUPT_HINT
    return error


def verify_file(path: Path, target: int, migrations: Mapping[int, tuple[str, ...]]) -> None:
    """Check an existing store file without writing to it: its header, SQLite's
    `PRAGMA quick_check` on a read-only connection, its schema version and the tables that
    version has. StoreCorruptError for damage, StoreError when it cannot be read or is
    newer than `target`."""
    check_header(path)
    try:
        conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True,
                               isolation_level=None, timeout=5.0)
    except sqlite3.Error as exc:
        raise StoreError(f"{path}: cannot open the store file: {exc}") from exc
    try:
        rows = [str(r[0]) for r in conn.execute("PRAGMA quick_check").fetchall()]
        if rows != ["ok"]:
            more = len(rows) - _SHOWN_PROBLEMS
            raise _corrupt(f"{path} failed SQLite's integrity check: "
                           f"{'; '.join(rows[:_SHOWN_PROBLEMS])}"
                           + (f" (and {more} more)" if more > 0 else ""))
        version = int(conn.execute("PRAGMA user_version").fetchone()[0])
        if version > target:
            raise StoreError(f"{path}: store schema version {version} is newer than this "
                             f"clawharness supports ({target}); upgrade clawharness to open it")
        if version == target:
            check_tables(conn, path, target, migrations)
    except sqlite3.OperationalError as exc:  # locked, unreadable -wal/-shm
        raise StoreError(f"{path}: cannot read the store file: {exc}") from exc
    except sqlite3.DatabaseError as exc:  # "file is not a database", "disk image is malformed"
        raise _corrupt(f"{path}: SQLite cannot read it: {exc}") from exc
    finally:
        conn.close()
