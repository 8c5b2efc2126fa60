"""Doctor's look at the session store: can it be read, and is it whole.

A SQLite store is checked without writing to it: the header (`store._sqlite_file`), then
SQLite's own `PRAGMA quick_check` on a read-only connection, the schema version, and
the tables a store of that version has (opening it the host's way would migrate it and
build its search file: doctor writes nothing). A PostgreSQL store is opened and closed,
which checks the server answers, the credentials and the schema. Nothing is repaired:
a damaged store is reported with what to do (`CORRUPT_HINT`), and the file is left as
it was. A store that does not exist yet is no problem (the first turn creates it).
"""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

from clawharness.doctor.diagnosis import Finding
from clawharness.errors import ClawHarnessError, StoreCorruptError, StoreError
from clawharness.names import display_store_url

__all__ = ["check_store"]

#: how long opening a store (a PostgreSQL connection) may take before doctor says so
OPEN_TIMEOUT_S = 15.0
#: `quick_check` lines shown in a finding (a badly damaged file reports thousands)
_SHOWN_PROBLEMS = 3


def _sqlite_path(url: str) -> Path:
    return Path(url.removeprefix("sqlite:///"))


def _corrupt(where: str, message: str) -> Finding:
    from clawharness.store._sqlite_file import CORRUPT_HINT

    return Finding("store-corrupt", "error", where, f"{message}; {CORRUPT_HINT}")


def _check_sqlite_file(path: Path, where: str) -> Finding | None:
    """The read-only checks: header, integrity, schema version and tables."""
    from clawharness.store._sqlite_file import check_header, check_tables
    from clawharness.store.sqlite import _MIGRATIONS, SCHEMA_VERSION

    try:
        check_header(path)
    except StoreCorruptError as exc:
        return _corrupt(where, str(exc))
    except StoreError as exc:
        return Finding("store-unreadable", "error", where, str(exc))
    try:
        conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True,
                               isolation_level=None, timeout=5.0)
    except sqlite3.Error as exc:
        return Finding("store-unreadable", "error", where, f"{path}: cannot open: {exc}")
    try:
        rows = [str(r[0]) for r in conn.execute("PRAGMA quick_check").fetchall()]
        if rows != ["ok"]:
            shown = "; ".join(rows[:_SHOWN_PROBLEMS])
            more = f" (and {len(rows) - _SHOWN_PROBLEMS} more)" if len(rows) > _SHOWN_PROBLEMS else ""
            return _corrupt(where, f"{path} failed SQLite's integrity check: {shown}{more}")
        version = int(conn.execute("PRAGMA user_version").fetchone()[0])
        if version > SCHEMA_VERSION:
            return Finding("store-too-new", "error", where,
                           f"{path}: store schema version {version} is newer than this "
                           f"clawharness supports ({SCHEMA_VERSION}); upgrade clawharness")
        if version == SCHEMA_VERSION:
            check_tables(conn, path, SCHEMA_VERSION, _MIGRATIONS)
    except StoreCorruptError as exc:
        return _corrupt(where, str(exc))
    except sqlite3.DatabaseError as exc:
        # "file is not a database", "database disk image is malformed", a locked file
        return _corrupt(where, f"{path}: SQLite cannot read it: {exc}")
    finally:
        conn.close()
    return None


async def _open_and_close(url: str) -> None:
    from clawharness.store import open_store

    store = open_store(url)
    try:
        await store.open()
    finally:
        await store.close()


def check_store(url: str) -> list[Finding]:
    """What is wrong with the store at `url` (a path, `sqlite:///...` or `postgresql://...`):
    nothing, or one finding (`store-corrupt`, `store-unreadable`, `store-too-new`,
    `store-unavailable`). Never changes a damaged store."""
    where = f"store ({display_store_url(url)})"
    if "://" not in url or url.startswith("sqlite:///"):
        path = _sqlite_path(url)
        if not path.exists():
            return []
        problem = _check_sqlite_file(path, where)
        return [] if problem is None else [problem]
    try:
        asyncio.run(asyncio.wait_for(_open_and_close(url), OPEN_TIMEOUT_S))
    except StoreCorruptError as exc:
        return [_corrupt(where, str(exc))]
    except TimeoutError:
        return [Finding("store-unavailable", "error", where,
                        f"the store did not open within {OPEN_TIMEOUT_S:g} s")]
    except (ClawHarnessError, OSError) as exc:
        return [Finding("store-unavailable", "error", where, f"cannot open the store: {exc}")]
    return []
