"""The loader scenarios here count exactly what they install: the example harness that
scripts/setup.sh installs into the dev environment (entry point `echo`) is hidden from
plugin discovery for these tests (tests/examples drives it through discovery)."""

from __future__ import annotations

import importlib.metadata
from typing import Any

import pytest

EXAMPLE_DISTRIBUTIONS = frozenset({"clawharness-echo-harness"})


@pytest.fixture(autouse=True)
def without_the_example_distributions(monkeypatch: pytest.MonkeyPatch) -> None:
    real = importlib.metadata.entry_points

    def entry_points(**selection: Any) -> importlib.metadata.EntryPoints:
        found = real(**selection)
        return importlib.metadata.EntryPoints(
            ep for ep in found
            if getattr(getattr(ep, "dist", None), "name", None) not in EXAMPLE_DISTRIBUTIONS)

    monkeypatch.setattr(importlib.metadata, "entry_points", entry_points)
