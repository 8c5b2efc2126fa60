"""Where the recorded vectors are: `data/vectors.jsonl` beside this file (recorded from the
original, see data/README.md), or the file `$CLAWHARNESS_VECTORS` names (another set of
vectors in the same format, e.g. one with other inputs). A missing or empty file is an
error, not an empty test set: conformance must never pass by running nothing."""

from __future__ import annotations

import json
import os
from collections.abc import Collection, Mapping
from pathlib import Path
from typing import Any

#: the vectors recorded from openclaw@2026.9.6, kept in the repository
RECORDED = Path(__file__).resolve().parent / "data" / "vectors.jsonl"
ENV_VAR = "CLAWHARNESS_VECTORS"


def vectors_path(env: Mapping[str, str] = os.environ) -> Path:
    """`$CLAWHARNESS_VECTORS` when set (and not empty), else the recorded file."""
    override = env.get(ENV_VAR)
    return Path(override) if override else RECORDED


VECTORS = vectors_path()


def load_cases(heads: Collection[str] | None = None, *,
               path: Path | None = None) -> list[dict[str, Any]]:
    """Every vector, or those whose `fn` head (before the first dot) is in `heads`."""
    source = VECTORS if path is None else path
    where = f"${ENV_VAR}" if source != RECORDED else "the repository's recorded set"
    if not source.is_file():
        raise FileNotFoundError(
            f"conformance vectors not found at {source} ({where}); point {ENV_VAR} at a "
            "vectors file, or unset it to use tests/conformance/data/vectors.jsonl "
            "(see tests/conformance/data/README.md)")
    cases = []
    for number, line in enumerate(source.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            cases.append(json.loads(line))
        except json.JSONDecodeError as exc:
            raise ValueError(f"{source}, line {number}: not a JSON object ({exc})") from exc
    if not cases:
        raise ValueError(f"{source} holds no conformance vectors ({where}); "
                         "conformance must not pass by running nothing")
    if heads is None:
        return cases
    return [case for case in cases if case["fn"].partition(".")[0] in heads]
