"""What a sandboxed command sees: its mounts, environment, network and limits.

A `SandboxPlan` is data both backends turn into their own argv (`bwrap.py`,
`docker.py`) and `sandbox explain` prints. The rules:

- the workspace is bound at its own path (so paths in output match the file tools'),
  read-write, read-only or not at all (`workspaceAccess`; "none" binds the sandbox's
  own workspace instead);
- system directories read-only; `/etc`'s secrets masked;
- nothing else of the host: no home directory, no state dir, store or config, no other
  workspace (masked where they lie inside the bound workspace), `/proc` showing the
  sandbox's own processes only, a private `/tmp`, `/var/tmp` and `/run`;
- the environment is built, not inherited: a few names pass from the host
  (`KEPT_ENV`), `HOME` and `TMPDIR` are `/tmp`, then `sandbox.env`;
- limits never above the host's own hard limits.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

from clawharness.errors import ToolError
from clawharness.names.bind_specs import split_sandbox_bind_spec
from clawharness.tools.sandbox.hostfacts import HostFacts
from clawharness.tools.sandbox.settings import SandboxBackendName, SandboxLimits, SandboxSettings

__all__ = [
    "DEFAULT_PATH",
    "KEPT_ENV",
    "Mount",
    "SandboxPlan",
    "SandboxPlanError",
    "build_plan",
    "effective_limits",
]

#: host variables a sandboxed command keeps (plus any `LC_*`); everything else is dropped
KEPT_ENV = ("LANG", "LANGUAGE", "TZ", "TERM", "COLORTERM", "NO_COLOR")
DEFAULT_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
#: private, empty, gone after the command
PRIVATE_DIRS = ("/tmp", "/var/tmp", "/run")

MountKind = Literal["ro-bind", "bind", "symlink", "tmpfs", "mask-dir", "mask-file", "proc",
                    "dev", "image"]
#: what a mount is for: the host's system, its hidden secrets, the sandbox's own
#: private dirs, the workspace, a configured bind, or a protected path masked
MountRole = Literal["system", "system-secret", "private", "workspace", "bind", "mask"]


class SandboxPlanError(ToolError):
    """The sandbox cannot be set up as configured (a bind that exposes the host's own
    files, a bind source that does not exist)."""

    code = "sandbox_config"


@dataclass(frozen=True, slots=True)
class Mount:
    """One thing in the sandbox's file system, in the order it is set up."""

    kind: MountKind
    target: str
    role: MountRole
    #: the host path (binds), the link text (symlinks)
    source: str | None = None
    #: why it is there, for `sandbox explain`
    why: str = ""


@dataclass(frozen=True, slots=True)
class SandboxPlan:
    backend: SandboxBackendName
    #: the host directory bound as the workspace (None: workspaceAccess "none" without
    #: its own directory never happens; "ro"/"rw" bind the agent's, "none" the sandbox's)
    workspace: str
    workspace_access: Literal["rw", "ro", "none"]
    #: the directory the command starts in (inside the workspace)
    workdir: str
    mounts: tuple[Mount, ...]
    network: bool
    env: Mapping[str, str]
    #: the names `env` took from the host
    env_from_host: tuple[str, ...]
    limits: SandboxLimits
    #: how the process limit holds: "rlimit", "cgroup" or "none" (root, no pids cgroup)
    process_limit_by: str = "rlimit"
    scope_key: str = ""
    uid: int = 0
    gid: int = 0
    docker_image: str | None = None
    docker_network: str | None = None
    docker_user: str | None = None
    notes: tuple[str, ...] = field(default_factory=tuple)


def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip("/") + "/")


def effective_limits(limits: SandboxLimits, hard: Mapping[str, int | None]) -> SandboxLimits:
    """`limits` capped at the host's hard limits (a sandbox never gets more)."""
    scale = {"memory_mb": 1024 * 1024, "file_size_mb": 1024 * 1024}
    values: dict[str, int] = {}
    for name in ("cpu_seconds", "memory_mb", "processes", "file_size_mb", "open_files"):
        wanted = getattr(limits, name)
        cap = hard.get(name)
        if cap is not None:
            wanted = min(wanted, max(1, cap // scale.get(name, 1)))
        values[name] = wanted
    return SandboxLimits(**values)


def _sandbox_path(facts: HostFacts, workspace: str) -> str:
    """PATH inside: the host's entries that exist in the sandbox, else a standard one."""
    shown = [d.path for d in facts.system_dirs] + [workspace]
    kept = [p for p in facts.env.get("PATH", "").split(":")
            if p and os.path.isabs(p) and any(_inside(p, root) for root in shown)]
    return ":".join(dict.fromkeys(kept)) or DEFAULT_PATH


def _environment(settings: SandboxSettings, facts: HostFacts, workspace: str,
                 backend: SandboxBackendName) -> tuple[dict[str, str], tuple[str, ...]]:
    taken = tuple(sorted(name for name in facts.env
                         if name in KEPT_ENV or name.startswith("LC_")))
    env = {name: facts.env[name] for name in taken}
    env.update({"PATH": _sandbox_path(facts, workspace), "HOME": "/tmp", "TMPDIR": "/tmp",
                "USER": facts.user_name, "LOGNAME": facts.user_name, "SHELL": "/bin/bash"})
    env.setdefault("LANG", "C.UTF-8")
    env.update(settings.env)
    if backend == "docker":
        env.update(settings.docker_env)
    return env, taken


def _bind_mount(spec: str, facts: HostFacts) -> Mount:
    parts = split_sandbox_bind_spec(spec)
    if parts is None:  # the schema refuses these; a bind built in code might not be checked
        raise SandboxPlanError(f"sandbox bind {spec!r} has no ':' between its two paths")
    source = os.path.realpath(parts.host)
    if not os.path.exists(source):
        raise SandboxPlanError(f"sandbox bind {spec!r}: {parts.host} does not exist here")
    for protected in facts.protected:
        if protected.what.endswith("workspace"):
            continue  # showing another agent's workspace is the operator's choice
        if _inside(source, protected.path) or _inside(protected.path, source):
            raise SandboxPlanError(
                f"sandbox bind {spec!r} would show {protected.what} ({protected.path}) inside "
                "the sandbox, where a command could change the host's own files; it is refused")
    writable = parts.options.strip() == "rw"
    return Mount("bind" if writable else "ro-bind", os.path.normpath(parts.container), "bind",
                 source, why="sandbox.binds" + ("" if writable else " (read-only unless :rw)"))


def _masks(facts: HostFacts, shown: list[tuple[str, str]], workspace: str) -> list[Mount]:
    """Protected paths that lie inside something shown (host root, sandbox root), hidden
    behind an empty mount at the path they would have inside."""
    candidates = [(p.path, p.what) for p in facts.protected if p.path != workspace]
    home = facts.home
    roots = [host for host, _ in shown]
    if home is not None and any(_inside(home, root) for root in roots):
        if home in roots:
            # the home directory itself is shown (a workspace at ~): hide its dot files,
            # where keys and credentials live
            try:
                entries = sorted(e for e in os.listdir(home) if e.startswith("."))
            except OSError:
                entries = []
            candidates.extend((os.path.join(home, e), "a dot file of the home directory")
                              for e in entries)
        else:
            candidates.append((home, "the home directory"))
    masks: list[Mount] = []
    hidden_dirs: list[str] = []
    # shortest first: a path inside a directory already hidden needs no mask of its own
    for path, what in sorted(candidates, key=lambda c: (len(c[0]), c[0])):
        if not os.path.lexists(path):
            continue
        if os.path.islink(path):
            # a link shows what it points to: hide that, when it is shown at all
            path = os.path.realpath(path)
            if not os.path.exists(path):
                continue
        for host_root, sandbox_root in shown:
            if path == host_root or not _inside(path, host_root):
                continue
            target = sandbox_root.rstrip("/") + path[len(host_root.rstrip("/")):]
            if any(_inside(target, d) for d in hidden_dirs):
                continue
            is_dir = os.path.isdir(path) and not os.path.islink(path)
            if is_dir:
                hidden_dirs.append(target)
            masks.append(Mount("mask-dir" if is_dir else "mask-file", target, "mask",
                               why=f"hides {what}"))
    return masks


def _resolver_mounts() -> list[Mount]:
    """With network on, name resolution must work: where /etc/resolv.conf points into
    /run (systemd-resolved), which is private inside, show the file it points to."""
    target = os.path.realpath("/etc/resolv.conf")
    if target.startswith("/run/") and os.path.isfile(target):
        return [Mount("ro-bind", target, "system", target, why="name resolution (network on)")]
    return []


def build_plan(settings: SandboxSettings, facts: HostFacts, *, backend: SandboxBackendName,
               workspace: str, workdir: str, scope: str, process_limit_by: str) -> SandboxPlan:
    """The plan for one command run in `workdir` (inside `workspace`, a real path)."""
    access = settings.workspace_access
    mounts: list[Mount] = []
    if backend == "docker":
        # the image is the whole system: nothing of the host's file system but what follows
        mounts.append(Mount("image", "/", "system", settings.docker_image,
                            why="the image's own system, read-only; nothing of the host's"))
    else:
        for system in facts.system_dirs:
            if system.link is not None:
                mounts.append(Mount("symlink", system.path, "system", system.link,
                                    why="system (as here)"))
            else:
                mounts.append(Mount("ro-bind", system.path, "system", system.path,
                                    why="system, read-only"))
        mounts.extend(Mount("mask-dir" if os.path.isdir(p) else "mask-file", p,
                            "system-secret", why="hides a secret of /etc")
                      for p in facts.etc_secrets)
    mounts.append(Mount("proc", "/proc", "private", why="this sandbox's processes only"))
    mounts.append(Mount("dev", "/dev", "private", why="null, zero, random, tty: no host devices"))
    mounts.extend(Mount("tmpfs", d, "private", why="private, empty, gone after the command")
                  for d in PRIVATE_DIRS)
    if settings.network and backend != "docker":
        mounts.extend(_resolver_mounts())
    if access == "ro":
        mounts.append(Mount("ro-bind", workspace, "workspace", workspace,
                            why="the workspace, read-only"))
    elif access == "rw":
        mounts.append(Mount("bind", workspace, "workspace", workspace,
                            why="the workspace, read-write"))
    else:
        mounts.append(Mount("bind", workspace, "workspace", workspace,
                            why=f"the sandbox's own workspace ({scope}), read-write"))
    binds = [*settings.binds, *(settings.docker_binds if backend == "docker" else ())]
    extra = [_bind_mount(spec, facts) for spec in binds]
    for mount in extra:
        if _inside(mount.target, workspace) or _inside(workspace, mount.target):
            raise SandboxPlanError(
                f"sandbox bind to {mount.target} overlaps the workspace {workspace}; "
                "bind elsewhere")
    mounts.extend(extra)
    shown = [(workspace, workspace), *((m.source, m.target) for m in extra if m.source)]
    if backend != "docker":  # a config file or state dir under /etc or /opt is hidden too
        shown.extend((d.path, d.path) for d in facts.system_dirs if d.link is None)
    mounts.extend(_masks(facts, shown, workspace))
    env, taken = _environment(settings, facts, workspace, backend)
    return SandboxPlan(
        backend=backend, workspace=workspace, workspace_access=access, workdir=workdir,
        mounts=tuple(mounts), network=settings.network, env=env, env_from_host=taken,
        limits=effective_limits(settings.limits, facts.hard_limits),
        process_limit_by=process_limit_by, scope_key=scope, uid=facts.uid, gid=facts.gid,
        docker_image=settings.docker_image if backend == "docker" else None,
        docker_network=settings.docker_network if backend == "docker" else None,
        docker_user=settings.docker_user if backend == "docker" else None,
    )
