"""A pids cgroup per sandboxed command, where an rlimit cannot bound its processes.

`RLIMIT_NPROC` counts a user's processes, and the kernel never applies it to root (uid 0
on the host, whatever user namespace it runs in). So when the host runs as root, the
process limit is a cgroup's `pids.max` instead: a directory per command under a
`clawharness-sandbox` group, made before the command starts, removed after it. Both
cgroup layouts are handled: v1 (a `pids` hierarchy) and v2 (the unified one, when the
`pids` controller can be enabled below this process's cgroup). Where neither can be
written, `PidsCgroups.unavailable` says why and the limit is reported as not enforced.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import os
from dataclasses import dataclass
from pathlib import Path

__all__ = ["PidsCgroup", "PidsCgroups", "find_pids_cgroups"]

_GROUP = "clawharness-sandbox"
_counter = itertools.count(1)


@dataclass(frozen=True, slots=True)
class PidsCgroup:
    """One command's cgroup: its directory and the file a process joins it by."""

    path: Path

    @property
    def procs_file(self) -> str:
        return str(self.path / "cgroup.procs")

    def peak(self) -> int | None:
        """The most processes it held at once (when the kernel reports it)."""
        try:
            return int((self.path / "pids.peak").read_text().strip())
        except (OSError, ValueError):
            return None

    async def remove(self, *, wait_seconds: float = 2.0) -> bool:
        """Remove it once its processes are gone (killed processes take a moment to
        leave); False when it is still busy after `wait_seconds`."""
        delay = 0.005
        loop = asyncio.get_running_loop()
        deadline = loop.time() + wait_seconds
        while True:
            try:
                self.path.rmdir()
                return True
            except FileNotFoundError:
                return True
            except OSError:
                if loop.time() >= deadline:
                    return False
            await asyncio.sleep(delay)
            delay = min(delay * 2, 0.1)


@dataclass(frozen=True, slots=True)
class PidsCgroups:
    """Where per-command pids cgroups are made here (`base`), or why they cannot be."""

    base: Path | None
    unavailable: str | None = None

    def create(self, max_pids: int) -> PidsCgroup:
        """A new cgroup holding at most `max_pids` processes (OSError when refused)."""
        assert self.base is not None
        path = self.base / f"{os.getpid()}-{next(_counter)}"
        path.mkdir()
        try:
            (path / "pids.max").write_text(str(max_pids))
        except OSError:
            with contextlib.suppress(OSError):
                path.rmdir()
            raise
        return PidsCgroup(path)


def _mounts() -> list[tuple[str, str, str]]:
    """(mount point, fs type, super options) of every mount, from /proc/self/mountinfo."""
    found: list[tuple[str, str, str]] = []
    try:
        lines = Path("/proc/self/mountinfo").read_text().splitlines()
    except OSError:
        return found
    for line in lines:
        left, _, right = line.partition(" - ")
        fields, tail = left.split(), right.split()
        if len(fields) >= 5 and len(tail) >= 3:
            found.append((fields[4].replace("\\040", " "), tail[0], tail[2]))
    return found


def _own_cgroups() -> dict[str, str]:
    """controller list (`pids`, or "" for v2) -> this process's cgroup path."""
    own: dict[str, str] = {}
    try:
        lines = Path("/proc/self/cgroup").read_text().splitlines()
    except OSError:
        return own
    for line in lines:
        parts = line.split(":", 2)
        if len(parts) == 3:
            for controller in parts[1].split(","):
                own[controller] = parts[2]
    return own


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _sweep(base: Path) -> None:
    """Remove what exited hosts left: groups named `<pid>-<n>` whose host process is
    gone (a live host's group may be empty for a moment before its command joins it);
    rmdir refuses a group that still holds processes."""
    with contextlib.suppress(OSError):
        for child in base.iterdir():
            owner = child.name.split("-", 1)[0]
            if child.is_dir() and owner.isdigit() and not _alive(int(owner)):
                with contextlib.suppress(OSError):
                    child.rmdir()


def _v1(mount: str, own: str) -> PidsCgroups:
    base = Path(mount) / own.lstrip("/") / _GROUP
    base.mkdir(exist_ok=True)
    return PidsCgroups(base)


def _v2(mount: str, own: str) -> PidsCgroups:
    parent = Path(mount) / own.lstrip("/")
    if "pids" not in (parent / "cgroup.controllers").read_text().split():
        return PidsCgroups(None, "the pids controller is not available to this cgroup")
    if "pids" not in (parent / "cgroup.subtree_control").read_text().split():
        # refused (EBUSY) when this cgroup holds processes and is not the root
        (parent / "cgroup.subtree_control").write_text("+pids")
    base = parent / _GROUP
    base.mkdir(exist_ok=True)
    if "pids" not in (base / "cgroup.subtree_control").read_text().split():
        (base / "cgroup.subtree_control").write_text("+pids")
    return PidsCgroups(base)


def find_pids_cgroups() -> PidsCgroups:
    """Where this process can make pids cgroups, tried once per call."""
    own = _own_cgroups()
    mounts = _mounts()
    tried: list[str] = []
    for mount, fstype, options in mounts:
        if fstype == "cgroup" and "pids" in options.split(",") and "pids" in own:
            try:
                found = _v1(mount, own["pids"])
            except OSError as exc:
                tried.append(f"cgroup v1 at {mount}: {exc.strerror or exc}")
                continue
            if found.base is not None:
                _sweep(found.base)
            return found
    for mount, fstype, _options in mounts:
        if fstype == "cgroup2" and "" in own:
            try:
                found = _v2(mount, own[""])
            except OSError as exc:
                tried.append(f"cgroup v2 at {mount}: {exc.strerror or exc}")
                continue
            if found.base is None:
                tried.append(f"cgroup v2 at {mount}: {found.unavailable}")
                continue
            _sweep(found.base)
            return found
    return PidsCgroups(None, "; ".join(tried) or "no cgroup file system is mounted")
