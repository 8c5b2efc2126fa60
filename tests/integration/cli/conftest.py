"""Fixtures for the real-Claude-Code integration tests (see `claude_cli_rig`)."""

from __future__ import annotations

from claude_cli_rig import rig_factory

__all__ = ["rig_factory"]
