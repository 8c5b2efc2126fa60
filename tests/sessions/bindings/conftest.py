"""Fixtures for the native binding tests: a real SQLite store and a fake clock."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from binding_clock import FakeClock

from clawharness.sessions.bindings import (
    DictRecordCodec,
    NativeSessionBindingLifecycle,
    create_native_session_binding_lifecycle,
)
from clawharness.store.sqlite import SqliteStore


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[SqliteStore]:
    s = SqliteStore(tmp_path / "state.db")
    await s.open()
    try:
        yield s
    finally:
        await s.close()


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def lifecycle(store: SqliteStore, clock: FakeClock) -> NativeSessionBindingLifecycle[Any]:
    return create_native_session_binding_lifecycle(
        store, "test-bindings", codec=DictRecordCodec(), timings=clock.timings())
