"""Fixtures for the gateway's tests: a fake host and a gateway listening over it."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from gateway_support import FakeHost, Rig, running_gateway


@pytest.fixture
def fake_host(tmp_path: Path) -> FakeHost:
    return FakeHost(state_dir=tmp_path / "state")


@pytest.fixture
async def rig(fake_host: FakeHost) -> AsyncIterator[Rig]:
    async with running_gateway(fake_host) as running:
        yield running
