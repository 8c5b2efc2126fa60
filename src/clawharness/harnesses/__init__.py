"""The bundled harnesses, each a plugin built on `clawharness.plugin_sdk` alone (the
built-in one also on `clawharness.providers`): `embedded` (id `openclaw`), `codex`,
`cli` (claude-cli), `acp`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from clawharness._faces import lazy_face

if TYPE_CHECKING:
    from clawharness.harnesses.embedded.harness import OpenClawHarness

__all__ = [
    "OpenClawHarness",
]

__getattr__, __dir__ = lazy_face(__name__, {
    "OpenClawHarness": "clawharness.harnesses.embedded.harness",
})
