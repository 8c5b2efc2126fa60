"""The Agent Client Protocol harness (`acp/<agent>` model refs)."""

from __future__ import annotations
