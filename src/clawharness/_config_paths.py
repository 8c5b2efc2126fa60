"""Where the state dir and the config file are, with the standard library alone.

`clawharness.config.loader` re-exports these; they live down here so the command line's
thin path (`clawharness agent` through a running `serve`, `cli.via_serve`) can find the
config file without importing the config schema.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

__all__ = ["CONFIG_FILENAMES", "resolve_config_path", "state_dir"]

CONFIG_FILENAMES = ("config.json5", "config.json", "openclaw.json")


def state_dir(env: Mapping[str, str] | None = None) -> Path:
    """The state directory: `CLAWHARNESS_STATE_DIR`, else `~/.clawharness`."""
    env = os.environ if env is None else env
    raw = env.get("CLAWHARNESS_STATE_DIR")
    return Path(raw).expanduser() if raw else Path.home() / ".clawharness"


def resolve_config_path(explicit: str | os.PathLike[str] | None = None,
                        env: Mapping[str, str] | None = None) -> Path | None:
    """The config file to read, or None when there is none anywhere."""
    env = os.environ if env is None else env
    if explicit:
        return Path(explicit).expanduser()
    from_env = env.get("CLAWHARNESS_CONFIG")
    if from_env:
        return Path(from_env).expanduser()
    base = state_dir(env)
    for name in CONFIG_FILENAMES:
        candidate = base / name
        if candidate.exists():
            return candidate
    return None
