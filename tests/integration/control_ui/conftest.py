"""The browser tests reuse the HTTP side's gateway rig (tests/gateway_http/http_support)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "gateway_http"))
