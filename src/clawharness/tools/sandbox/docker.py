"""A `SandboxPlan` as `docker run`: one throwaway container per command, same options.

    docker run --rm --init --name clawharness-sbx-<id> --network none|<net>
      --cap-drop ALL --security-opt no-new-privileges --read-only
      --tmpfs /tmp --tmpfs /var/tmp --tmpfs /run --user UID:GID
      --pids-limit N --memory M --ulimit cpu=.. --ulimit fsize=.. --ulimit nofile=..
      -v WORKSPACE:WORKSPACE[:ro] <binds and masks> -w WORKDIR -e NAME ... IMAGE bash -c CMD

The container's file system is the image's, so the host's system directories, home
and state are not in it at all; the plan's system mounts and `/etc` masks do not apply.
Killing the `docker run` client does not stop a container, so `kill_argv` removes it by
name when a command times out or is aborted.
"""

from __future__ import annotations

import secrets

from clawharness.tools.sandbox.plan import PRIVATE_DIRS, SandboxPlan

__all__ = ["container_name", "docker_argv", "kill_argv"]

_MIB = 1024 * 1024


def container_name() -> str:
    return f"clawharness-sbx-{secrets.token_hex(6)}"


def docker_argv(docker: str, plan: SandboxPlan, command: str, name: str) -> list[str]:
    """`docker run` for `bash -c command` as the plan says (environment by name: the
    client is started with the plan's environment, so no value shows in a process list)."""
    limits = plan.limits
    user = plan.docker_user or f"{plan.uid}:{plan.gid}"
    argv = [docker, "run", "--rm", "--init", "--name", name,
            "--label", "clawharness.sandbox=1",
            "--network", plan.docker_network if plan.network and plan.docker_network else "none",
            "--cap-drop", "ALL", "--security-opt", "no-new-privileges", "--read-only",
            "--user", user, "--pids-limit", str(limits.processes),
            "--memory", f"{limits.memory_mb}m", "--memory-swap", f"{limits.memory_mb}m",
            "--ulimit", f"cpu={limits.cpu_seconds}:{limits.cpu_seconds}",
            "--ulimit", f"fsize={limits.file_size_mb * _MIB}:{limits.file_size_mb * _MIB}",
            "--ulimit", f"nofile={limits.open_files}:{limits.open_files}",
            "--hostname", "clawharness-sandbox"]
    for directory in PRIVATE_DIRS:
        argv += ["--tmpfs", f"{directory}:rw,nosuid,nodev"]
    # the image is the system: only the workspace, the binds and their masks come in
    for mount in plan.mounts:
        if mount.role in ("workspace", "bind"):
            suffix = ":ro" if mount.kind == "ro-bind" else ""
            argv += ["-v", f"{mount.source}:{mount.target}{suffix}"]
        elif mount.role == "mask" and mount.kind == "mask-dir":
            argv += ["--tmpfs", f"{mount.target}:ro"]
        elif mount.role == "mask":
            argv += ["-v", f"/dev/null:{mount.target}:ro"]
    argv += ["-w", plan.workdir]
    for name_ in plan.env:
        argv += ["-e", name_]
    argv += [str(plan.docker_image), "bash", "-c", command]
    return argv


def kill_argv(docker: str, name: str) -> list[str]:
    return [docker, "rm", "--force", name]
