"""Fixtures for the real-Codex integration tests (see `codex_rig`)."""

from __future__ import annotations

from codex_rig import make_rig

__all__ = ["make_rig"]
