"""One agent's sandbox settings, resolved from config, and the decision for a session.

Resolution (pure): `agents.entries.<id>.sandbox` over `agents.defaults.sandbox`, key by
key; `env` and `binds` merge (the agent's after the defaults'); under `scope: "shared"`
the agent's own `env`, `binds` and `docker` are ignored, as in OpenClaw, since one
sandbox serves every agent.

Two kinds of default:

- **No `mode` anywhere** (a fresh install): exec is sandboxed when a backend works here
  and runs on the host, said once, when none does. The workspace is bound read-write, so
  commands work on the agent's files as they would unsandboxed.
- **`mode` set** (OpenClaw's meaning, so an OpenClaw config means the same here): the
  sandbox is required; with no working backend `exec` is refused, never run on the host.
  Unset keys take OpenClaw's defaults: `scope: "agent"`, `workspaceAccess: "none"` (a
  sandbox workspace of its own under `workspaceRoot`).

An explicit `backend` (without `mode`) makes the sandbox required too, with the
fresh-install defaults otherwise (mode "all", the workspace read-write).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from clawharness.config.sandbox import SandboxConfig
from clawharness.config.schema import ClawConfig

__all__ = [
    "DEFAULT_DOCKER_IMAGE",
    "DEFAULT_LIMITS",
    "MAIN_SESSION_NAME",
    "SandboxBackendName",
    "SandboxDecision",
    "SandboxLimits",
    "SandboxSettings",
    "is_main_session",
    "resolve_sandbox_settings",
    "sandbox_applies",
    "sandboxed_agents",
    "scope_key",
    "status_probe_key",
]

SandboxBackendName = Literal["bwrap", "docker"]

#: the name of an agent's main session (OpenClaw's `session.mainKey`, fixed here)
MAIN_SESSION_NAME = "main"
#: Docker's image when `sandbox.docker.image` is unset: a small Debian with bash
DEFAULT_DOCKER_IMAGE = "debian:bookworm-slim"


@dataclass(frozen=True, slots=True)
class SandboxLimits:
    """Per-command resource limits."""

    cpu_seconds: int
    memory_mb: int
    processes: int
    file_size_mb: int
    open_files: int


#: generous for builds and test runs, small enough that a runaway command cannot take the
#: machine: 10 CPU minutes, 4 GiB of writable memory, 512 processes, 4 GiB files
DEFAULT_LIMITS = SandboxLimits(cpu_seconds=600, memory_mb=4096, processes=512,
                               file_size_mb=4096, open_files=4096)


@dataclass(frozen=True, slots=True)
class SandboxSettings:
    """`agents.*.sandbox` for one agent, every key filled in."""

    agent_id: str
    mode: Literal["off", "non-main", "all"]
    #: False: no `mode`/`backend` anywhere, so sandboxing is best effort (see the module doc)
    required: bool
    backend: Literal["auto", "bwrap", "docker"]
    scope: Literal["session", "agent", "shared"]
    workspace_access: Literal["rw", "ro", "none"]
    workspace_root: Path
    network: bool
    env: Mapping[str, str] = field(default_factory=dict)
    binds: tuple[str, ...] = ()
    limits: SandboxLimits = DEFAULT_LIMITS
    docker_image: str = DEFAULT_DOCKER_IMAGE
    #: the Docker network used when `network` is on
    docker_network: str = "bridge"
    docker_binds: tuple[str, ...] = ()
    docker_env: Mapping[str, str] = field(default_factory=dict)
    docker_user: str | None = None
    #: where each setting came from, for `sandbox explain`: key -> config key path
    sources: Mapping[str, str] = field(default_factory=dict)


def _pick(name: str, agent: SandboxConfig | None, defaults: SandboxConfig | None,
          agent_path: str, sources: dict[str, str]) -> Any:
    for block, where in ((agent, agent_path), (defaults, "agents.defaults.sandbox")):
        value = getattr(block, name) if block is not None else None
        if value is not None:
            sources[name] = where
            return value
    return None


def resolve_sandbox_settings(config: ClawConfig, agent_id: str, *,
                             state_dir: Path) -> SandboxSettings:
    """The effective sandbox settings of `agent_id` (see the module doc for defaults)."""
    defaults = config.agents.defaults.sandbox
    entry = config.agents.entries.get(agent_id)
    agent = entry.sandbox if entry is not None else None
    agent_path = f"agents.entries.{agent_id}.sandbox"
    sources: dict[str, str] = {}

    def pick(name: str) -> Any:
        return _pick(name, agent, defaults, agent_path, sources)

    mode = pick("mode")
    backend = pick("backend")
    required = mode is not None or backend is not None
    scope = pick("scope")
    if scope is None:
        per_session = pick("per_session")
        scope = "agent" if per_session is None else ("session" if per_session else "shared")
    # OpenClaw's default where its own key says a sandbox is wanted; rw otherwise
    access: Literal["rw", "ro", "none"] = (pick("workspace_access")
                                           or ("none" if mode is not None else "rw"))
    root = pick("workspace_root")
    workspace_root = (Path(str(root)).expanduser() if root is not None
                      else state_dir / "sandboxes")
    # the agent's own env, binds and docker block do not apply to a shared sandbox
    own = None if scope == "shared" else agent
    docker_default = defaults.docker if defaults is not None else None
    docker_own = own.docker if own is not None else None
    docker_network = _first(docker_own, docker_default, "network")
    network = pick("network")
    if network is None:  # OpenClaw's docker.network: anything but "none" lets traffic out
        network = docker_network is not None and docker_network != "none"
    limits = _limits(own, defaults)
    return SandboxSettings(
        agent_id=agent_id,
        mode=mode or "all",
        required=required,
        backend=backend or "auto",
        scope=scope,
        workspace_access=access,
        workspace_root=workspace_root,
        network=bool(network),
        env={**(defaults.env or {} if defaults else {}), **(own.env or {} if own else {})},
        binds=(*(defaults.binds or () if defaults else ()), *(own.binds or () if own else ())),
        limits=limits,
        docker_image=str(_first(docker_own, docker_default, "image") or DEFAULT_DOCKER_IMAGE),
        docker_network=(str(docker_network) if docker_network not in (None, "none")
                        else "bridge"),
        docker_binds=(*(docker_default.binds or () if docker_default else ()),
                      *(docker_own.binds or () if docker_own else ())),
        docker_env={**(docker_default.env or {} if docker_default else {}),
                    **(docker_own.env or {} if docker_own else {})},
        docker_user=_first(docker_own, docker_default, "user"),
        sources=sources,
    )


def _first(own: object, default: object, name: str) -> Any:
    for block in (own, default):
        value = getattr(block, name, None) if block is not None else None
        if value is not None:
            return value
    return None


def _limits(own: SandboxConfig | None, defaults: SandboxConfig | None) -> SandboxLimits:
    values = {}
    for name in ("cpu_seconds", "memory_mb", "processes", "file_size_mb", "open_files"):
        value = None
        for block in (own, defaults):
            limits = block.limits if block is not None else None
            if limits is not None and getattr(limits, name) is not None:
                value = getattr(limits, name)
                break
        values[name] = value if value is not None else getattr(DEFAULT_LIMITS, name)
    return SandboxLimits(**values)


def is_main_session(session_key: str, agent_id: str) -> bool:
    """Whether `session_key` is the agent's main session (`agent:<id>:main`)."""
    return session_key == f"agent:{agent_id}:{MAIN_SESSION_NAME}"


def sandbox_applies(settings: SandboxSettings, session_key: str) -> bool:
    """Whether a command of this session belongs in the sandbox (backends aside)."""
    if settings.mode == "off":
        return False
    if settings.mode == "non-main":
        return not is_main_session(session_key, settings.agent_id)
    return True


def status_probe_key(agent_id: str) -> str:
    """The session `clawharness status` asks about for an agent's sandbox."""
    return f"agent:{agent_id}:sandbox-check"


def sandboxed_agents(config: ClawConfig, agent_ids: Sequence[str], *,
                     state_dir: Path) -> list[str]:
    """The agents whose status check belongs in the sandbox: only theirs need a backend
    probed (`explain.status_lines`); the others' sandbox is off for it."""
    return [agent_id for agent_id in agent_ids
            if sandbox_applies(resolve_sandbox_settings(config, agent_id, state_dir=state_dir),
                               status_probe_key(agent_id))]


_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def scope_key(settings: SandboxSettings, session_key: str) -> str:
    """The name of the sandbox a session's commands share: its session, its agent, or
    one for all; a file name (a session key's `:` and `/` replaced, plus a short hash so
    two keys never share one)."""
    if settings.scope == "shared":
        return "shared"
    if settings.scope == "agent":
        return f"agent-{_UNSAFE.sub('_', settings.agent_id)}"
    digest = hashlib.sha256(session_key.encode()).hexdigest()[:10]
    return f"session-{_UNSAFE.sub('_', session_key)[:80]}-{digest}"


@dataclass(frozen=True, slots=True)
class SandboxDecision:
    """Where one session's command runs, and why."""

    #: run in the sandbox (`backend` says which)
    sandboxed: bool
    backend: SandboxBackendName | None
    #: why, in words (for explain and the tool's details)
    reason: str
    #: set when the command must not run at all: the sandbox is required and no backend
    #: works (fail closed); the message says what to do
    refusal: str | None = None
    #: set when the command runs on the host only because no backend works here
    unavailable: str | None = None
