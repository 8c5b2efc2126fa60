"""What a sandbox plan needs to know about this machine, read from it.

The host's own files (state dir, store, config file) and the other agents' workspaces are
"protected": a sandbox never shows them, even when they lie inside the workspace it
binds. System directories are shown read-only, as they are on the host (a directory
bound, a symlink such as Debian's `/bin -> usr/bin` recreated), less the secrets under
`/etc` (shadow files, SSH host keys, TLS private keys).
"""

from __future__ import annotations

import glob
import os
import pwd
import resource
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from clawharness.config.schema import ClawConfig

__all__ = [
    "SYSTEM_DIRS",
    "HostFacts",
    "ProtectedPath",
    "SystemDir",
    "agent_workspace_dir",
    "read_host_facts",
]

#: shown read-only inside the sandbox when they exist here
SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt")
#: secrets under /etc a root-mapped sandbox user could otherwise read
_ETC_SECRETS = ("/etc/shadow", "/etc/shadow-", "/etc/gshadow", "/etc/gshadow-",
                "/etc/sudoers", "/etc/sudoers.d", "/etc/ssl/private", "/etc/ssh/ssh_host_*_key")
#: resource name -> the rlimit it sets
_RLIMITS = {"cpu_seconds": resource.RLIMIT_CPU, "memory_mb": resource.RLIMIT_DATA,
            "processes": resource.RLIMIT_NPROC, "file_size_mb": resource.RLIMIT_FSIZE,
            "open_files": resource.RLIMIT_NOFILE}


@dataclass(frozen=True, slots=True)
class SystemDir:
    """A system directory as it is here: a directory, or a symlink to `link`."""

    path: str
    link: str | None = None


@dataclass(frozen=True, slots=True)
class ProtectedPath:
    """A host path a sandbox never shows, and what it is (for the message and the mask)."""

    path: str
    what: str


@dataclass(frozen=True, slots=True)
class HostFacts:
    uid: int
    gid: int
    user_name: str
    home: str | None
    system_dirs: tuple[SystemDir, ...]
    #: existing secrets under /etc, masked inside
    etc_secrets: tuple[str, ...]
    protected: tuple[ProtectedPath, ...]
    #: the host's environment (only the names in `plan.KEPT_ENV` pass)
    env: Mapping[str, str] = field(default_factory=dict)
    #: the hard limit of each `SandboxLimits` field here, None when unlimited; a sandbox
    #: cannot be given more than the host has
    hard_limits: Mapping[str, int | None] = field(default_factory=dict)


def agent_workspace_dir(config: ClawConfig, state_dir: Path, agent_id: str) -> Path:
    """An agent's workspace: its own `workspace`, else the defaults', else
    `<state dir>/workspace/<agent id>` (the turn runner's rule)."""
    entry = config.agents.entries.get(agent_id)
    raw = (entry.workspace if entry else None) or config.agents.defaults.workspace
    return Path(raw).expanduser() if raw else state_dir / "workspace" / agent_id


def _system_dirs() -> tuple[SystemDir, ...]:
    found: list[SystemDir] = []
    for path in SYSTEM_DIRS:
        if os.path.islink(path):
            found.append(SystemDir(path, os.readlink(path)))
        elif os.path.isdir(path):
            found.append(SystemDir(path))
    return tuple(found)


def _etc_secrets() -> tuple[str, ...]:
    found: list[str] = []
    for pattern in _ETC_SECRETS:
        found.extend(sorted(glob.glob(pattern)) if "*" in pattern else
                     [pattern] if os.path.lexists(pattern) else [])
    return tuple(found)


def _hard_limits() -> dict[str, int | None]:
    limits: dict[str, int | None] = {}
    for name, which in _RLIMITS.items():
        hard = resource.getrlimit(which)[1]
        limits[name] = None if hard == resource.RLIM_INFINITY else hard
    return limits


def _user_name(uid: int, env: Mapping[str, str]) -> str:
    try:
        return pwd.getpwuid(uid).pw_name
    except KeyError:
        return env.get("USER") or str(uid)


def read_host_facts(config: ClawConfig, *, state_dir: Path, env: Mapping[str, str],
                    store_url: str | None = None, config_path: Path | None = None) -> HostFacts:
    """This machine's facts for the sandbox of a host with `config` and `state_dir`."""
    uid, gid = os.getuid(), os.getgid()
    protected: list[ProtectedPath] = [
        ProtectedPath(os.path.realpath(state_dir), "the state dir")]
    store = store_url or str(state_dir / "clawharness.db")
    if "://" not in store:
        real = os.path.realpath(Path(store).expanduser())
        protected.extend(ProtectedPath(real + suffix, "the store")
                         for suffix in ("", "-wal", "-shm", "-search", "-search-wal",
                                        "-search-shm"))
    if config_path is not None:
        protected.append(ProtectedPath(os.path.realpath(config_path), "the config file"))
    agent_ids = set(config.agents.entries) | {"main"}
    for agent_id in sorted(agent_ids):
        path = os.path.realpath(agent_workspace_dir(config, state_dir, agent_id))
        protected.append(ProtectedPath(path, f"agent {agent_id}'s workspace"))
    home = env.get("HOME") or os.environ.get("HOME")
    return HostFacts(
        uid=uid, gid=gid, user_name=_user_name(uid, env),
        home=os.path.realpath(home) if home else None,
        system_dirs=_system_dirs(), etc_secrets=_etc_secrets(), protected=tuple(protected),
        env=dict(env), hard_limits=_hard_limits(),
    )
