"""Fixtures for the run service tests: a real host on a scripted model server (the
host tests' `scripted_host`, see tests/host/host_rig.py)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "host"))
from host_rig import scripted_host

__all__ = ["scripted_host"]
