"""Fixtures for the real OpenClaw client tests (see `openclaw_rig`)."""

from __future__ import annotations

from openclaw_rig import gateway_process, openclaw_cli

__all__ = ["gateway_process", "openclaw_cli"]
