"""Writing the config file back: validate first, back up, replace atomically, load back.

Used by `doctor --fix` and `config set`. Nothing is written when the new content does
not validate (every problem is raised in one ConfigError), so a refused edit changes
nothing. The backup is `<name>.bak-<UTC timestamp>` next to the file. An existing file
is edited in place (`config.roundtrip`): only the keys that changed are rewritten, so its
comments, layout, key order, quote style and trailing commas stay. A new file, or an
edit that cannot be made in place, is written as JSON with 2-space indentation (valid
JSON5); then the old file's comments survive only in the backup (`WriteResult.kept_layout`
says which happened).
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
from clawharness.config.roundtrip import edit_json5_text
from clawharness.config.source import decode_config_text
from clawharness.errors import ConfigError

__all__ = ["WriteResult", "write_config"]


@dataclass(frozen=True, slots=True)
class WriteResult:
    path: Path
    backup: Path | None
    loaded: LoadedConfig = field(repr=False)
    #: the file was edited in place (its comments and layout kept), not written anew
    kept_layout: bool = False


def _in_place(target: Path, new_raw: Mapping[str, Any]) -> str | None:
    """The file's text with only what changed rewritten; None when there is no file to
    edit or the edit cannot be made in place."""
    try:
        text = target.read_text(encoding="utf-8")
        old = decode_config_text(text, source=str(target)).raw
    except (OSError, UnicodeDecodeError, ConfigError):
        return None
    if not text.strip():
        return None
    return edit_json5_text(text, old, dict(new_raw),
                           lambda edited: decode_config_text(edited, source=str(target)).raw)


def write_config(path: str | os.PathLike[str], new_raw: Mapping[str, Any], *,
                 now: datetime | None = None) -> WriteResult:
    """Validate `new_raw`, back up the current file, write `new_raw`, and load it back."""
    target = Path(path)
    parse_config(dict(new_raw), source=str(target))
    edited = _in_place(target, new_raw) if target.exists() else None
    text = edited if edited is not None else json.dumps(new_raw, indent=2,
                                                         ensure_ascii=False) + "\n"
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
    return WriteResult(target, backup, load_config(target, env={}),
                       kept_layout=edited is not None)
