"""One host's sandbox as the exec and file tools use it.

`SandboxService` (one per host) reads the machine once (backends, facts, cgroups) and
says the "no sandbox here" notice once; `AgentSandbox` (one per agent) answers, for a
session, which workspace the tools work in and how `exec` launches a command.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import threading
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from clawharness.config.schema import ClawConfig
from clawharness.errors import ToolError
from clawharness.tools.sandbox.backends import (
    BackendStatus,
    backend_order,
    backend_statuses,
    decide,
    docker_image_status,
)
from clawharness.tools.sandbox.bwrap import bwrap_argv, limit_argv
from clawharness.tools.sandbox.cgroups import PidsCgroup, PidsCgroups, find_pids_cgroups
from clawharness.tools.sandbox.docker import container_name, docker_argv, kill_argv
from clawharness.tools.sandbox.hostfacts import HostFacts, read_host_facts
from clawharness.tools.sandbox.plan import SandboxPlan, SandboxPlanError, build_plan
from clawharness.tools.sandbox.settings import (
    SandboxBackendName,
    SandboxDecision,
    SandboxSettings,
    resolve_sandbox_settings,
    sandbox_applies,
    scope_key,
)

__all__ = [
    "AgentSandbox",
    "FileWorkspace",
    "Launch",
    "PreparedExec",
    "SandboxRefusedError",
    "SandboxService",
]

log = logging.getLogger("clawharness.sandbox")


class SandboxRefusedError(ToolError):
    """The sandbox is required and cannot run the command (no backend works here)."""

    code = "sandbox_unavailable"


@dataclass(frozen=True, slots=True)
class Launch:
    """How to start one command: argv and environment of the launcher on the host, and
    what to do when it is killed (a Docker container outlives its client) or has ended."""

    argv: tuple[str, ...]
    env: Mapping[str, str]
    cwd: str
    on_kill: Callable[[], Awaitable[None]] | None = None
    on_end: Callable[[], Awaitable[None]] | None = None


@dataclass(frozen=True, slots=True)
class FileWorkspace:
    """Where a session's file tools work, and whether they may write there."""

    path: str
    read_only: bool = False
    #: the config key that makes it so (for the refusal message)
    rule: str | None = None


@dataclass(frozen=True, slots=True)
class PreparedExec:
    """How one command runs: `launch` None means on the host, the usual way."""

    decision: SandboxDecision
    workspace: str
    launch: Launch | None = None
    plan: SandboxPlan | None = None
    #: said once per host: no sandbox works here, so this command ran on the host
    notice: str | None = None
    details: Mapping[str, object] = field(default_factory=dict)


class SandboxService:
    """The sandbox of one host: settings per agent, this machine's facts, one notice."""

    def __init__(self, config: ClawConfig, *, state_dir: Path, store_url: str | None = None,
                 config_path: Path | None = None) -> None:
        self.config = config
        self.state_dir = state_dir
        self._store_url = store_url
        self._config_path = config_path
        self._settings: dict[str, SandboxSettings] = {}
        self._facts: HostFacts | None = None
        self._cgroups: PidsCgroups | None = None
        self._lock = threading.Lock()
        self._noticed = False

    def settings(self, agent_id: str) -> SandboxSettings:
        found = self._settings.get(agent_id)
        if found is None:
            found = self._settings[agent_id] = resolve_sandbox_settings(
                self.config, agent_id, state_dir=self.state_dir)
        return found

    def facts(self) -> HostFacts:
        with self._lock:
            if self._facts is None:
                self._facts = read_host_facts(
                    self.config, state_dir=self.state_dir, env=os.environ,
                    store_url=self._store_url, config_path=self._config_path)
            return self._facts

    def pids_cgroups(self) -> PidsCgroups:
        """Where process-limit cgroups are made (root only: an rlimit holds otherwise)."""
        with self._lock:
            if self._cgroups is None:
                self._cgroups = (find_pids_cgroups() if os.geteuid() == 0 else
                                 PidsCgroups(None, "not root: RLIMIT_NPROC holds the limit"))
            return self._cgroups

    def process_limit_by(self) -> str:
        if os.geteuid() != 0:
            return "rlimit"
        return "cgroup" if self.pids_cgroups().base is not None else "none"

    def statuses(self, settings: SandboxSettings) -> dict[SandboxBackendName, BackendStatus]:
        """The backends `settings` may use, in order, up to the first that works (each
        probed once per process; blocking)."""
        found: dict[SandboxBackendName, BackendStatus] = {}
        if settings.mode == "off":
            return found
        for name in backend_order(settings):
            status = backend_statuses((name,))[name]
            if name == "docker" and settings.backend == "auto":
                status = docker_image_status(status, settings.docker_image)
            found[name] = status
            if status.available:
                break
        return found

    def take_notice(self) -> bool:
        """True the first time only: the "no sandbox here" notice is said once per host."""
        with self._lock:
            first, self._noticed = not self._noticed, True
            return first

    def for_agent(self, agent_id: str) -> AgentSandbox:
        return AgentSandbox(self, agent_id)


class AgentSandbox:
    """One agent's sandbox, as its exec and file tools use it."""

    def __init__(self, service: SandboxService, agent_id: str) -> None:
        self.service = service
        self.agent_id = agent_id

    @property
    def settings(self) -> SandboxSettings:
        return self.service.settings(self.agent_id)

    def file_workspace(self, session_key: str, workspace_dir: str, *,
                       create: bool = True) -> FileWorkspace:
        """Where this session's tools work: the agent's workspace, read-only under
        `workspaceAccess: "ro"`, or the sandbox's own under "none" (made unless
        `create` is False)."""
        settings = self.settings
        if not sandbox_applies(settings, session_key):
            return FileWorkspace(workspace_dir)
        rule = settings.sources.get("workspace_access", "agents.defaults.sandbox")
        if settings.workspace_access == "ro":
            return FileWorkspace(workspace_dir, read_only=True, rule=f"{rule}.workspaceAccess")
        if settings.workspace_access == "none":
            path = settings.workspace_root / scope_key(settings, session_key)
            if create:
                path.mkdir(parents=True, exist_ok=True, mode=0o700)
            return FileWorkspace(os.path.realpath(path))
        return FileWorkspace(workspace_dir)

    def decision(self, session_key: str) -> SandboxDecision:
        """Where this session's commands run (probes backends on first use: blocking)."""
        settings = self.settings
        return decide(settings, session_key, self.service.statuses(settings))

    async def prepare_exec(self, *, session_key: str, workspace: str, workdir: str,
                           command: str) -> PreparedExec:
        """How to run `command` for `session_key` in `workdir` (inside `workspace`, the
        `file_workspace` path); `SandboxRefusedError` when it must not run at all."""
        # everything that may block (a first probe, the cgroup) in one hop off the loop
        return await asyncio.to_thread(self._prepare, session_key, workspace, workdir, command)

    def _prepare(self, session_key: str, workspace: str, workdir: str,
                 command: str) -> PreparedExec:
        settings = self.settings
        decision = self.decision(session_key)
        if decision.refusal is not None:
            raise SandboxRefusedError(decision.refusal)
        if not decision.sandboxed or decision.backend is None:
            notice = None
            if decision.unavailable is not None and self.service.take_notice():
                notice = decision.unavailable
                log.warning("%s", notice)
            return PreparedExec(decision, workspace, notice=notice,
                                details={"sandboxed": False})
        status = self.service.statuses(settings)[decision.backend]
        programs = dict(status.programs or {})
        limit_by = (self.service.process_limit_by() if decision.backend == "bwrap"
                    else "docker")
        plan = build_plan(settings, self.service.facts(), backend=decision.backend,
                          workspace=workspace, workdir=workdir,
                          scope=scope_key(settings, session_key), process_limit_by=limit_by)
        if decision.backend == "docker":
            launch = _docker_launch(programs["docker"], plan, command)
        else:
            launch = self._bwrap_launch(programs, plan, command)
        return PreparedExec(decision, workspace, launch=launch, plan=plan, details={
            "sandboxed": True, "backend": decision.backend, "network": plan.network,
            "workspaceAccess": plan.workspace_access})

    def _bwrap_launch(self, programs: Mapping[str, str], plan: SandboxPlan,
                      command: str) -> Launch:
        argv = limit_argv(programs["prlimit"], plan) + bwrap_argv(programs["bwrap"], plan,
                                                                   command)
        cgroup: PidsCgroup | None = None
        if plan.process_limit_by == "cgroup":
            try:
                cgroup = self.service.pids_cgroups().create(plan.limits.processes)
            except OSError as exc:
                raise SandboxPlanError(f"cannot make the pids cgroup that bounds the "
                                       f"command's processes: {exc.strerror or exc}") from exc
            # join the cgroup before anything forks: the shell replaces itself with prlimit
            argv = ["/bin/sh", "-c", 'echo $$ > "$0" && exec "$@"', cgroup.procs_file, *argv]

        async def on_end() -> None:
            # the command's result does not wait for its processes to leave the cgroup
            if cgroup is not None:
                task = asyncio.get_running_loop().create_task(_remove_cgroup(cgroup))
                _cleanups.add(task)
                task.add_done_callback(_cleanups.discard)

        return Launch(tuple(argv), dict(plan.env), plan.workspace, on_end=on_end)


#: cgroup removals still waiting for their processes to leave (kept from the collector)
_cleanups: set[asyncio.Task[None]] = set()


async def _remove_cgroup(cgroup: PidsCgroup) -> None:
    if not await cgroup.remove():
        log.warning("sandbox cgroup %s still busy; a later host removes it", cgroup.path)


def _docker_launch(docker: str, plan: SandboxPlan, command: str) -> Launch:
    name = container_name()

    async def on_kill() -> None:
        with contextlib.suppress(OSError):
            process = await asyncio.create_subprocess_exec(
                *kill_argv(docker, name), stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.DEVNULL)
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(30):
                    await process.wait()

    # the client reads DOCKER_HOST and its config from the host's environment; the
    # container gets the plan's variables by name (-e NAME) from this same environment
    env = {k: v for k, v in os.environ.items() if k.startswith("DOCKER_")}
    home = os.environ.get("HOME")
    if home and "DOCKER_CONFIG" not in env:
        env["DOCKER_CONFIG"] = os.path.join(home, ".docker")
    env.update(plan.env)
    return Launch(tuple(docker_argv(docker, plan, command, name)), env, plan.workspace,
                  on_kill=on_kill)
