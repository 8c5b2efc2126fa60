"""Writing the config file back: validate first, back up, replace atomically, load back.

Used by `doctor --fix` and `config set`. Nothing is written when the new content does
not validate (every problem is raised in one ConfigError), so a refused edit changes
nothing. The backup is `<name>.bak-<UTC timestamp>` next to the file. The new file is
JSON with 2-space indentation, which is valid JSON5 and decodes on the fast path;
comments in the old file survive only in the backup.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from clawharness.config.loader import LoadedConfig, load_config, parse_config
from clawharness.errors import ConfigError

__all__ = ["WriteResult", "write_config"]


@dataclass(frozen=True, slots=True)
class WriteResult:
    path: Path
    backup: Path | None
    loaded: LoadedConfig = field(repr=False)


def write_config(path: str | os.PathLike[str], new_raw: Mapping[str, Any], *,
                 now: datetime | None = None) -> WriteResult:
    """Validate `new_raw`, back up the current file, write `new_raw`, and load it back."""
    target = Path(path)
    parse_config(dict(new_raw), source=str(target))
    text = json.dumps(new_raw, indent=2, ensure_ascii=False) + "\n"
    backup: Path | None = None
    tmp = target.with_name(f".{target.name}.write-tmp")
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        if target.exists():
            stamp = (now or datetime.now(UTC)).strftime("%Y%m%dT%H%M%S%fZ")
            backup = target.with_name(f"{target.name}.bak-{stamp}")
            shutil.copy2(target, backup)
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, target)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise ConfigError(f"cannot write the config: {exc.strerror or exc}",
                          path=str(target)) from None
    return WriteResult(target, backup, load_config(target, env={}))
