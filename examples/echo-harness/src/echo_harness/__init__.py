"""An example harness plugin for clawharness (see docs/writing-a-harness.md)."""

from __future__ import annotations

from echo_harness.harness import HARNESS_ID, EchoHarness

__all__ = ["HARNESS_ID", "EchoHarness"]
