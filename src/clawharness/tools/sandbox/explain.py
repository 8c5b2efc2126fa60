"""What a command of an agent's session would see: `clawharness sandbox explain`, the
status line and doctor's findings all come from here."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from clawharness.tools.sandbox.backends import BackendStatus
from clawharness.tools.sandbox.hostfacts import agent_workspace_dir
from clawharness.tools.sandbox.plan import SandboxPlan, SandboxPlanError, build_plan
from clawharness.tools.sandbox.runner import SandboxService
from clawharness.tools.sandbox.settings import (
    SandboxDecision,
    SandboxSettings,
    sandbox_applies,
    scope_key,
    status_probe_key,
)

__all__ = ["SandboxExplanation", "SandboxFinding", "explain_sandbox", "sandbox_findings",
           "status_lines"]

_LIMIT_UNITS = {"cpu_seconds": ("cpuSeconds", "s"), "memory_mb": ("memoryMb", " MiB"),
                "processes": ("processes", ""), "file_size_mb": ("fileSizeMb", " MiB"),
                "open_files": ("openFiles", "")}


@dataclass(frozen=True, slots=True)
class SandboxExplanation:
    agent_id: str
    session_key: str
    settings: SandboxSettings
    decision: SandboxDecision
    backends: tuple[BackendStatus, ...]
    #: what the command would see; None when it runs on the host (or cannot run)
    plan: SandboxPlan | None
    #: the workspace the session's tools use
    workspace: str
    #: why no plan could be made (a bad bind), when one should have been
    plan_error: str | None = None

    def limits(self) -> list[tuple[str, str, str]]:
        """(config key, value, how it holds) per limit."""
        if self.plan is None:
            return []
        rows: list[tuple[str, str, str]] = []
        for name, (key, unit) in _LIMIT_UNITS.items():
            value = getattr(self.plan.limits, name)
            if name == "processes":
                how = {"rlimit": "RLIMIT_NPROC (user namespace)", "cgroup": "pids cgroup",
                       "docker": "docker --pids-limit",
                       "none": "not enforced: root and no writable pids cgroup"}[
                    self.plan.process_limit_by]
            elif self.plan.backend == "docker":
                how = "docker --memory" if name == "memory_mb" else "docker --ulimit"
            else:
                how = {"cpu_seconds": "RLIMIT_CPU", "memory_mb": "RLIMIT_DATA",
                       "file_size_mb": "RLIMIT_FSIZE", "open_files": "RLIMIT_NOFILE"}[name]
            rows.append((key, f"{value}{unit}", how))
        return rows

    def to_json(self) -> dict[str, Any]:
        plan = self.plan
        settings = self.settings
        return {
            "agentId": self.agent_id,
            "sessionKey": self.session_key,
            "sandboxed": self.decision.sandboxed,
            "backend": self.decision.backend,
            "reason": self.decision.reason,
            "refusal": self.decision.refusal,
            "unavailable": self.decision.unavailable,
            "planError": self.plan_error,
            "settings": {
                "mode": settings.mode, "required": settings.required,
                "backend": settings.backend, "scope": settings.scope,
                "workspaceAccess": settings.workspace_access, "network": settings.network,
                "workspaceRoot": str(settings.workspace_root),
                "sources": dict(settings.sources),
            },
            "backends": [{"name": b.name, "available": b.available, "detail": b.detail}
                         for b in self.backends],
            "workspace": self.workspace,
            "mounts": None if plan is None else [
                {"kind": m.kind, "role": m.role, "source": m.source, "target": m.target,
                 "why": m.why} for m in plan.mounts],
            "network": None if plan is None else plan.network,
            # names only: a value in sandbox.env may be a secret
            "env": None if plan is None else sorted(plan.env),
            "envFromHost": None if plan is None else list(plan.env_from_host),
            "limits": None if plan is None else {
                key: {"value": value, "enforcedBy": how} for key, value, how in self.limits()},
        }


def explain_sandbox(service: SandboxService, agent_id: str, session_key: str
                    ) -> SandboxExplanation:
    """Where a command of `session_key` (an `agent_id` session) would run, and what it
    would see there. Probes the backends (blocking)."""
    settings = service.settings(agent_id)
    agent_sandbox = service.for_agent(agent_id)
    workspace_dir = str(agent_workspace_dir(service.config, service.state_dir, agent_id))
    workspace = agent_sandbox.file_workspace(session_key, workspace_dir, create=False).path
    statuses = service.statuses(settings)
    decision = agent_sandbox.decision(session_key)
    plan: SandboxPlan | None = None
    error: str | None = None
    if decision.sandboxed and decision.backend is not None:
        real = os.path.realpath(workspace)
        try:
            plan = build_plan(
                settings, service.facts(), backend=decision.backend, workspace=real,
                workdir=real, scope=scope_key(settings, session_key),
                process_limit_by=(service.process_limit_by() if decision.backend == "bwrap"
                                  else "docker"))
        except SandboxPlanError as exc:
            error = str(exc)
    return SandboxExplanation(agent_id, session_key, settings, decision,
                              tuple(statuses.values()), plan, workspace, error)


@dataclass(frozen=True, slots=True)
class SandboxFinding:
    """One thing doctor says about the sandbox (its `Finding`'s fields)."""

    code: str
    severity: str
    path: str
    message: str


def sandbox_findings(service: SandboxService, agent_ids: Sequence[str]
                     ) -> list[SandboxFinding]:
    """Doctor's view of `agent_ids`: an agent whose exec would be refused (a required
    sandbox with no backend, a bad bind: errors), whose process limit cannot hold, or that
    would run on the host (a warning, said once for all of them)."""
    findings: list[SandboxFinding] = []
    host_agents: list[str] = []
    unavailable: str | None = None
    for agent_id in agent_ids:
        settings = service.settings(agent_id)
        # the question is whether a sandboxed session could run: ask for a non-main one
        probe_key = f"agent:{agent_id}:sandbox-check"
        if not sandbox_applies(settings, probe_key):
            continue
        decision = service.for_agent(agent_id).decision(probe_key)
        where = settings.sources.get("mode") or settings.sources.get("backend") or (
            "agents.defaults.sandbox")
        if decision.refusal is not None:
            findings.append(SandboxFinding("sandbox-unavailable", "error", where,
                                           f"agent {agent_id}: {decision.refusal}"))
        elif decision.unavailable is not None:
            host_agents.append(agent_id)
            unavailable = decision.unavailable
        elif decision.sandboxed:
            explanation = explain_sandbox(service, agent_id, probe_key)
            if explanation.plan_error is not None:
                findings.append(SandboxFinding("sandbox-config", "error", where,
                                               f"agent {agent_id}: {explanation.plan_error}"))
            elif (explanation.plan is not None
                  and explanation.plan.process_limit_by == "none"):
                findings.append(SandboxFinding(
                    "sandbox-process-limit", "warning", where,
                    f"agent {agent_id}: the sandbox's process limit is not enforced here "
                    "(running as root with no writable pids cgroup)"))
    if unavailable is not None:
        findings.append(SandboxFinding(
            "sandbox-unavailable", "warning", "agents.defaults.sandbox",
            f"agents {', '.join(host_agents)}: {unavailable}"))
    return findings


def status_lines(service: SandboxService, agent_ids: Sequence[str]) -> list[str]:
    """One line per problem for `clawharness status` (nothing when every agent's
    sandbox works or is off)."""
    lines: list[str] = []
    said_host = False
    for agent_id in agent_ids:
        settings = service.settings(agent_id)
        probe_key = status_probe_key(agent_id)
        if not sandbox_applies(settings, probe_key):
            continue
        decision = service.for_agent(agent_id).decision(probe_key)
        if decision.refusal is not None:
            lines.append(f"agent {agent_id}: {decision.refusal}")
        elif decision.unavailable is not None and not said_host:
            lines.append(decision.unavailable)
            said_host = True
    return lines
