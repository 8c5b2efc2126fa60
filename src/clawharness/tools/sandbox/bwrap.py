"""A `SandboxPlan` as bubblewrap's argv, wrapped in `prlimit` for the limits.

    [sh -c 'echo $$ > cgroup.procs && exec "$@"']     when a pids cgroup holds the limit
    prlimit --cpu=N --data=B --fsize=B --nofile=N --nproc=N --core=0 --
    bwrap --unshare-user --unshare-pid --unshare-ipc --unshare-uts [--unshare-net]
          --die-with-parent --new-session --cap-drop ALL --hostname ... <mounts>
          --chdir WORKDIR -- bash -c COMMAND

The environment is not passed by flags: the launcher is started with the plan's
environment, which bwrap hands on. Namespaces: a new user namespace (so no capability
reaches the host, and `--cap-drop ALL` inside it), a pid namespace (the command is pid 2
under bwrap's init; when the command's shell exits or bwrap is killed, the kernel kills
every process left in it), no network unless the plan has it, private IPC and host name.
"""

from __future__ import annotations

from clawharness.tools.sandbox.plan import Mount, SandboxPlan

__all__ = ["HOSTNAME", "bwrap_argv", "limit_argv", "mount_args"]

HOSTNAME = "clawharness-sandbox"
_MIB = 1024 * 1024


def limit_argv(prlimit: str, plan: SandboxPlan) -> list[str]:
    """`prlimit` with the plan's limits, soft and hard alike (a command cannot raise them)."""
    limits = plan.limits
    return [prlimit, f"--cpu={limits.cpu_seconds}", f"--data={limits.memory_mb * _MIB}",
            f"--fsize={limits.file_size_mb * _MIB}", f"--nofile={limits.open_files}",
            f"--nproc={limits.processes}", "--core=0", "--"]


def mount_args(mount: Mount) -> list[str]:
    """bwrap's flags for one mount."""
    if mount.kind == "ro-bind":
        return ["--ro-bind", str(mount.source), mount.target]
    if mount.kind == "bind":
        return ["--bind", str(mount.source), mount.target]
    if mount.kind == "symlink":
        return ["--symlink", str(mount.source), mount.target]
    if mount.kind == "tmpfs":
        return ["--tmpfs", mount.target]
    if mount.kind == "mask-dir":
        return ["--tmpfs", mount.target, "--remount-ro", mount.target]
    if mount.kind == "mask-file":
        return ["--ro-bind", "/dev/null", mount.target]
    if mount.kind == "proc":
        return ["--proc", mount.target]
    if mount.kind == "dev":
        return ["--dev", mount.target]
    raise ValueError(f"bwrap has no mount of kind {mount.kind!r}")


def bwrap_argv(bwrap: str, plan: SandboxPlan, command: str) -> list[str]:
    """bwrap running `bash -c command` as the plan says."""
    argv = [bwrap, "--unshare-user", "--unshare-pid", "--unshare-ipc", "--unshare-uts",
            "--unshare-cgroup-try"]
    if not plan.network:
        argv.append("--unshare-net")
    argv += ["--die-with-parent", "--new-session", "--cap-drop", "ALL",
             "--hostname", HOSTNAME]
    for mount in plan.mounts:
        argv += mount_args(mount)
    argv += ["--chdir", plan.workdir, "--", "bash", "-c", command]
    return argv
