"""Where the recorded vectors are: `shared/conformance/vectors.jsonl` beside the work tree
(as laid out for developers and CI), or `$CLAWHARNESS_VECTORS`. A missing file is an
error, not an empty test set: conformance must never pass by running nothing."""

from __future__ import annotations

import json
import os
from collections.abc import Collection
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
VECTORS = Path(os.environ.get("CLAWHARNESS_VECTORS")
               or REPO.parent / "shared" / "conformance" / "vectors.jsonl")


def load_cases(heads: Collection[str] | None = None) -> list[dict[str, Any]]:
    """Every vector, or those whose `fn` head (before the first dot) is in `heads`."""
    if not VECTORS.exists():
        raise FileNotFoundError(
            f"conformance vectors not found at {VECTORS}; put shared/ beside the work tree "
            "or set CLAWHARNESS_VECTORS")
    cases = [json.loads(line) for line in VECTORS.read_text().splitlines() if line.strip()]
    if heads is None:
        return cases
    return [case for case in cases if case["fn"].partition(".")[0] in heads]
