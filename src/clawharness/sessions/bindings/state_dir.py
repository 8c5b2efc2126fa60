"""State-directory migration for harnesses that move their default state location.

Seed 000 (ACPX): sessions move from the former default (`<workspace>/state`) to the new
default when the new default is empty. An explicitly configured directory is used as it
is and never relocated. A failed move warns and keeps the old location for the rest of
the process, so an update never silently hides existing sessions.
"""

from __future__ import annotations

import logging
import os
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

__all__ = ["StateDirResolution", "forget_state_dir_decisions", "resolve_state_dir"]

log = logging.getLogger("clawharness.sessions.bindings")

# Per process: a failed adoption keeps the old location until the process ends.
_retained: dict[tuple[str, str], Path] = {}


@dataclass(frozen=True, slots=True)
class StateDirResolution:
    """Where the harness keeps its state now, and why."""

    path: Path
    reason: Literal["explicit", "migrated", "new-default", "retained-old", "old-kept"]
    warning: str | None = None


def _is_empty(path: Path) -> bool:
    if not path.exists():
        return True
    return path.is_dir() and not any(path.iterdir())


def _move_into(source: Path, target: Path) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    if target.exists():
        target.rmdir()  # empty by the caller's check; a rename needs it gone
    try:
        os.replace(source, target)
    except OSError:
        # Another filesystem: copy everything first, then remove the source, so a
        # failure half-way leaves the old location complete.
        shutil.copytree(source, target)
        shutil.rmtree(source)


def resolve_state_dir(
    *, explicit: str | os.PathLike[str] | None, old_default: str | os.PathLike[str],
    new_default: str | os.PathLike[str], label: str = "harness",
) -> StateDirResolution:
    """The state directory to use, migrating the old default into an empty new one."""
    if explicit is not None and str(explicit).strip():
        return StateDirResolution(Path(explicit).expanduser(), "explicit")
    old, new = Path(old_default).expanduser(), Path(new_default).expanduser()
    memo = (str(old.absolute()), str(new.absolute()))
    if memo in _retained:
        return StateDirResolution(_retained[memo], "retained-old")
    if _is_empty(old) or old.absolute() == new.absolute():
        return StateDirResolution(new, "new-default")
    if not _is_empty(new):
        # Both hold state: the new default wins, but say that the old one still exists.
        warning = (f"{label}: both {old} and {new} hold state; using {new}. "
                   f"Move or remove {old} to silence this warning.")
        log.warning(warning)
        return StateDirResolution(new, "old-kept", warning)
    try:
        _move_into(old, new)
    except OSError as exc:
        if new.exists() and old.exists() and not _is_empty(old):
            # A partial copy must not become the state: drop it, keep the old location.
            shutil.rmtree(new, ignore_errors=True)
        warning = (f"{label}: could not move state from {old} to {new} ({exc}); "
                   f"keeping {old} for this process")
        log.warning(warning)
        _retained[memo] = old
        return StateDirResolution(old, "retained-old", warning)
    log.info("%s: moved state from %s to %s", label, old, new)
    return StateDirResolution(new, "migrated")


def forget_state_dir_decisions() -> None:
    """Forget retained old locations (tests; a real process keeps them until exit)."""
    _retained.clear()
