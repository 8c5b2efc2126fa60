"""`agents.defaults.sandbox` and `agents.entries.<id>.sandbox`: where `exec` runs.

OpenClaw's key names (`mode`, `scope`, `workspaceAccess`, `workspaceRoot`, `docker.*`,
`perSession`), plus this host's `backend` choice, a `network` switch, `env`, `binds` and
`limits`. Every key is optional here: an agent's block overrides the defaults' key by
key (`env` and `binds` merge), and `clawharness.tools.sandbox.settings` fills in what is
left unset. What the values mean is in docs/configuration.md ("Sandbox").
"""

from typing import Annotated, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

from clawharness.config.checks import CheckFailed
from clawharness.names.bind_specs import split_sandbox_bind_spec

__all__ = [
    "SandboxConfig",
    "SandboxDockerConfig",
    "SandboxLimitsConfig",
    "check_sandbox_bind",
]

SandboxMode = Literal["off", "non-main", "all"]
SandboxScope = Literal["session", "agent", "shared"]
SandboxWorkspaceAccess = Literal["rw", "ro", "none"]
SandboxBackendChoice = Literal["auto", "bwrap", "docker"]

_BIND_OPTIONS = frozenset({"ro", "rw"})


def check_sandbox_bind(value: str) -> str:
    """A bind spec `host:sandbox[:ro|rw]` with two absolute paths."""
    parts = split_sandbox_bind_spec(value.strip())
    hint = 'write it as "/host/path:/sandbox/path" or "/host/path:/sandbox/path:rw"'
    if parts is None:
        raise CheckFailed(f"bind {value!r} has no ':' between the host and the sandbox path",
                          code="sandbox-bind-invalid", hint=hint)
    if not parts.host.startswith("/") or not parts.container.startswith("/"):
        raise CheckFailed(f"bind {value!r}: both paths must be absolute",
                          code="sandbox-bind-invalid", hint=hint)
    options = {o for o in parts.options.split(",") if o} if parts.options else set()
    unknown = options - _BIND_OPTIONS
    if unknown or len(options) > 1:
        raise CheckFailed(f"bind {value!r}: options must be 'ro' or 'rw', not "
                          f"{parts.options!r}", code="sandbox-bind-invalid", hint=hint)
    return value


SandboxBind = Annotated[str, AfterValidator(check_sandbox_bind)]
_EnvName = Annotated[str, Field(pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")]


class _Node(BaseModel):
    model_config = ConfigDict(extra="allow", populate_by_name=True, frozen=False)


class SandboxLimitsConfig(_Node):
    """Per-command resource limits (unset: the defaults in docs/configuration.md)."""

    #: CPU seconds a process may use (RLIMIT_CPU; Docker: `--ulimit cpu`)
    cpu_seconds: int | None = Field(default=None, ge=1, le=86_400, alias="cpuSeconds")
    #: writable memory a process may map, in MiB (RLIMIT_DATA; Docker: `--memory`)
    memory_mb: int | None = Field(default=None, ge=16, le=1_048_576, alias="memoryMb")
    #: processes and threads the command may have at once (a pids cgroup, RLIMIT_NPROC;
    #: Docker: `--pids-limit`)
    processes: int | None = Field(default=None, ge=8, le=100_000)
    #: the largest file a process may write, in MiB (RLIMIT_FSIZE)
    file_size_mb: int | None = Field(default=None, ge=1, le=1_048_576, alias="fileSizeMb")
    #: open file descriptors per process (RLIMIT_NOFILE)
    open_files: int | None = Field(default=None, ge=16, le=1_048_576, alias="openFiles")


class SandboxDockerConfig(_Node):
    """`sandbox.docker`: the Docker backend's own settings (OpenClaw's names)."""

    image: str | None = Field(default=None, min_length=1)
    #: the Docker network when the sandbox has network (`sandbox.network: true`);
    #: OpenClaw's `"none"` (its default) means no network
    network: str | None = Field(default=None, min_length=1)
    #: extra binds for Docker only, merged after `sandbox.binds`
    binds: list[SandboxBind] | None = None
    env: dict[_EnvName, str] | None = None
    #: `uid:gid` inside the container (default: the host user's own)
    user: str | None = Field(default=None, pattern=r"^\d+(:\d+)?$")


class SandboxConfig(_Node):
    mode: SandboxMode | None = None
    backend: SandboxBackendChoice | None = None
    scope: SandboxScope | None = None
    #: legacy: true is scope "session", false is "shared"
    per_session: bool | None = Field(default=None, alias="perSession")
    workspace_access: SandboxWorkspaceAccess | None = Field(default=None,
                                                            alias="workspaceAccess")
    #: where sandbox workspaces live when workspaceAccess is "none"
    workspace_root: str | None = Field(default=None, min_length=1, alias="workspaceRoot")
    network: bool | None = None
    #: variables set inside the sandbox (the host's environment does not pass)
    env: dict[_EnvName, str] | None = None
    #: extra host paths to show inside: "host:sandbox[:ro|rw]" (read-only unless ":rw")
    binds: list[SandboxBind] | None = None
    limits: SandboxLimitsConfig | None = None
    docker: SandboxDockerConfig | None = None
