"""Fixtures for the gateway's HTTP side: a real gateway on port 0 (see http_support)."""

from __future__ import annotations

from pathlib import Path

import pytest
from http_support import ServeFactory, serve_factory


@pytest.fixture
def serve(tmp_path: Path) -> ServeFactory:
    return serve_factory(tmp_path)
