"""The built-in runtime (harness id `openclaw`): the host's own agent loop.

It imports only the plugin SDK's types and `clawharness.providers`, as a plugin would.
"""

from __future__ import annotations

from clawharness.harnesses.embedded.harness import HARNESS_ID, HARNESS_LABEL, OpenClawHarness

__all__ = ["HARNESS_ID", "HARNESS_LABEL", "OpenClawHarness", "create_harness"]


def create_harness() -> OpenClawHarness:
    """A new built-in harness with the default transports."""
    return OpenClawHarness()
