"""Doctor's look at the session store: can it be read, and is it whole.

A SQLite store is checked without writing to it (`store.verify_sqlite_store`: the
header, SQLite's own `PRAGMA quick_check` on a read-only connection, the schema version
and the tables a store of that version has); opening it the host's way would migrate it
and build its search file, and doctor writes nothing. A PostgreSQL store is opened and
closed, which checks that the server answers, the credentials and the schema. Nothing is
repaired: a damaged store is reported with what to do, and the file is left as it was.
A store that does not exist yet is no problem (the first turn creates it).
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from clawharness.doctor.diagnosis import Finding
from clawharness.errors import ClawHarnessError, StoreCorruptError, StoreError
from clawharness.names import display_store_url

__all__ = ["check_store"]

#: how long opening a store (a PostgreSQL connection) may take before doctor says so
OPEN_TIMEOUT_S = 15.0


def _message(exc: ClawHarnessError) -> str:
    return f"{exc}; {exc.hint}" if exc.hint else str(exc)


async def _open_and_close(url: str) -> None:
    from clawharness.store import open_store

    store = open_store(url)
    try:
        await store.open()
    finally:
        await store.close()


def check_store(url: str) -> list[Finding]:
    """What is wrong with the store at `url` (a path, `sqlite:///...` or `postgresql://...`):
    nothing, or one finding (`store-corrupt`, `store-unusable`, `store-unavailable`).
    Never changes the store."""
    where = f"store ({display_store_url(url)})"
    try:
        if "://" not in url or url.startswith("sqlite:///"):
            from clawharness.store import verify_sqlite_store

            path = Path(url.removeprefix("sqlite:///"))
            if path.exists():
                verify_sqlite_store(path)
            return []
        asyncio.run(asyncio.wait_for(_open_and_close(url), OPEN_TIMEOUT_S))
    except StoreCorruptError as exc:
        return [Finding("store-corrupt", "error", where, _message(exc))]
    except StoreError as exc:
        if "://" in url and not url.startswith("sqlite:///"):  # a server that did not open
            return [Finding("store-unavailable", "error", where, _message(exc))]
        return [Finding("store-unusable", "error", where, _message(exc))]
    except TimeoutError:
        return [Finding("store-unavailable", "error", where,
                        f"the store did not open within {OPEN_TIMEOUT_S:g} s")]
    except (ClawHarnessError, OSError) as exc:
        return [Finding("store-unavailable", "error", where, f"cannot open the store: {exc}")]
    return []
