"""Fixtures for the host's tests (see `host_rig`)."""

from __future__ import annotations

from host_rig import scripted_host

__all__ = ["scripted_host"]
