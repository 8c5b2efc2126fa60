"""The Codex plugin's config: `plugins.entries.codex.config.appServer`.

    appServer: {
      command: "codex",              # default: `codex` on PATH
      args: ["app-server"],
      env: {NAME: value},            # over a minimal base, never the host's whole environment
      config: {...},                 # merged into each CODEX_HOME's config.toml
      minVersion: "0.149.0",         # older, malformed or unversioned servers are refused
      maxValidatedVersion: "0.169.0",# newer ones only warn
      maxProcesses: 4,               # live app-server processes, all agents together
      maxThreadsPerProcess: 16,      # threads one process may host
      idleTimeoutSeconds: 600,       # an idle process is closed after this long
      requestTimeoutSeconds: 60,
      startupTimeoutSeconds: 30,
      approvalPolicy: "on-request",  # never | on-request | untrusted (on-failure -> on-request)
      sandbox: "workspace-write",    # read-only | workspace-write | danger-full-access
      home: "<dir>",                 # root of the per-agent CODEX_HOMEs
    }
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any

from clawharness.harnesses.codex.errors import CodexBinaryNotFoundError, CodexConfigError
from clawharness.harnesses.codex.protocol import (
    MAX_VALIDATED_CODEX_VERSION,
    MIN_CODEX_VERSION,
    parse_version,
)
from clawharness.harnesses.codex.tomlw import dumps, merge

__all__ = [
    "APPROVAL_POLICIES",
    "BASE_CODEX_CONFIG",
    "ENV_PASSTHROUGH",
    "SANDBOX_MODES",
    "AppServerConfig",
    "build_env",
    "parse_app_server_config",
    "render_config_toml",
    "resolve_command",
]

APPROVAL_POLICIES = ("never", "on-request", "untrusted")
SANDBOX_MODES = ("read-only", "workspace-write", "danger-full-access")

#: host variables a Codex process inherits (plus `appServer.env`); nothing else leaks.
#: HOME is not among them: it defaults to the agent's CODEX_HOME, so the login shells
#: Codex starts never read (or, when stopped, half-write) the host user's dotfiles.
ENV_PASSTHROUGH = ("PATH", "USER", "LOGNAME", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "TMPDIR",
                   "SHELL", "CODEX_API_KEY", "OPENAI_API_KEY")

#: written into every CODEX_HOME/config.toml before `appServer.config` is merged in:
#: no update checks, no analytics, nothing that reaches the internet at start-up
BASE_CODEX_CONFIG: Mapping[str, Any] = MappingProxyType({
    "check_for_update_on_startup": False,
    "analytics": {"enabled": False},
    "features": {"plugins": False, "apps": False, "remote_plugin": False,
                 "plugin_sharing": False, "tool_suggest": False},
})

_EMPTY: Mapping[str, Any] = MappingProxyType({})


@dataclass(frozen=True, slots=True)
class AppServerConfig:
    """How app-server processes are started and pooled."""

    command: str | None = None
    args: tuple[str, ...] = ("app-server",)
    env: Mapping[str, str | None] = field(default_factory=lambda: _EMPTY)
    config: Mapping[str, Any] = field(default_factory=lambda: _EMPTY)
    min_version: str = MIN_CODEX_VERSION
    max_validated_version: str | None = MAX_VALIDATED_CODEX_VERSION
    max_processes: int = 4
    max_threads_per_process: int = 16
    idle_timeout_seconds: float = 600.0
    request_timeout_seconds: float = 60.0
    startup_timeout_seconds: float = 30.0
    approval_policy: str = "on-request"
    sandbox: str = "workspace-write"
    home: str | None = None


def _number(raw: Mapping[str, Any], key: str, default: float, *, integer: bool = False,
            minimum: float = 0.0) -> Any:
    value = raw.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise CodexConfigError(key, f"expected a number, got {value!r}")
    if integer and not float(value).is_integer():
        raise CodexConfigError(key, f"expected a whole number, got {value!r}")
    if value < minimum:
        raise CodexConfigError(key, f"must be at least {minimum:g}, got {value!r}")
    return int(value) if integer else float(value)


def _text(raw: Mapping[str, Any], key: str, default: str | None) -> str | None:
    value = raw.get(key, default)
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip():
        raise CodexConfigError(key, f"expected a non-empty string, got {value!r}")
    return value.strip()


def parse_app_server_config(plugin_config: Mapping[str, Any] | None) -> AppServerConfig:
    """Validate `plugins.entries.codex.config` (its `appServer` block)."""
    raw_block = (plugin_config or {}).get("appServer", {})
    if raw_block is None:
        raw_block = {}
    if not isinstance(raw_block, Mapping):
        raise CodexConfigError("", f"expected an object, got {type(raw_block).__name__}")
    raw: Mapping[str, Any] = raw_block
    args = raw.get("args", ["app-server"])
    if isinstance(args, str) or not isinstance(args, list | tuple) \
            or not all(isinstance(a, str) for a in args):
        raise CodexConfigError("args", f"expected a list of strings, got {args!r}")
    env = raw.get("env", {}) or {}
    if not isinstance(env, Mapping) or not all(isinstance(k, str) for k in env):
        raise CodexConfigError("env", "expected an object of NAME: value")
    env_out: dict[str, str | None] = {}
    for name, value in env.items():
        if value is None or isinstance(value, str):
            env_out[name] = value
        elif isinstance(value, int | float) and not isinstance(value, bool):
            env_out[name] = str(value)
        else:
            # an env value may be a secret: name the kind found, never the value
            raise CodexConfigError(f"env.{name}", f"expected a string, got a {type(value).__name__}")
    table = raw.get("config", {}) or {}
    if not isinstance(table, Mapping):
        raise CodexConfigError("config", "expected an object (a config.toml table)")
    try:
        dumps(table)
    except TypeError as exc:
        raise CodexConfigError("config", str(exc)) from None
    min_version = _text(raw, "minVersion", MIN_CODEX_VERSION) or MIN_CODEX_VERSION
    if parse_version(min_version) is None:
        raise CodexConfigError("minVersion", f"{min_version!r} is not a version like 0.149.0")
    max_version = _text(raw, "maxValidatedVersion", MAX_VALIDATED_CODEX_VERSION)
    if max_version is not None and parse_version(max_version) is None:
        raise CodexConfigError("maxValidatedVersion", f"{max_version!r} is not a version")
    policy = _text(raw, "approvalPolicy", "on-request") or "on-request"
    if policy == "on-failure":
        policy = "on-request"
    if policy not in APPROVAL_POLICIES:
        raise CodexConfigError("approvalPolicy",
                               f"expected one of {', '.join(APPROVAL_POLICIES)}, got {policy!r}")
    sandbox = _text(raw, "sandbox", "workspace-write") or "workspace-write"
    if sandbox not in SANDBOX_MODES:
        raise CodexConfigError("sandbox",
                               f"expected one of {', '.join(SANDBOX_MODES)}, got {sandbox!r}")
    return AppServerConfig(
        command=_text(raw, "command", None), args=tuple(args),
        env=MappingProxyType(env_out), config=MappingProxyType(dict(table)),
        min_version=min_version, max_validated_version=max_version,
        max_processes=_number(raw, "maxProcesses", 4, integer=True, minimum=1),
        max_threads_per_process=_number(raw, "maxThreadsPerProcess", 16, integer=True,
                                        minimum=1),
        idle_timeout_seconds=_number(raw, "idleTimeoutSeconds", 600.0),
        request_timeout_seconds=_number(raw, "requestTimeoutSeconds", 60.0, minimum=0.001),
        startup_timeout_seconds=_number(raw, "startupTimeoutSeconds", 30.0, minimum=0.001),
        approval_policy=policy, sandbox=sandbox, home=_text(raw, "home", None),
    )


def resolve_command(config: AppServerConfig) -> list[str]:
    """The argv that starts one app-server; CodexBinaryNotFoundError when there is none."""
    command = config.command or "codex"
    if os.sep in command:
        path = Path(command).expanduser()
        if not path.exists():
            raise CodexBinaryNotFoundError(command, "does not exist")
        if not os.access(path, os.X_OK) or path.is_dir():
            raise CodexBinaryNotFoundError(command, "is not an executable file")
        return [str(path), *config.args]
    found = shutil.which(command)
    if found is None:
        raise CodexBinaryNotFoundError(command, "was not found on PATH")
    return [found, *config.args]


def build_env(config: AppServerConfig, codex_home: str, binary: str, *,
              host_env: Mapping[str, str] | None = None) -> dict[str, str]:
    """The exact environment of one app-server process.

    A minimal base from the host (`ENV_PASSTHROUGH`), `CODEX_HOME` and `HOME` (both the
    agent's Codex home), then `appServer.env` (a null value removes a name; set
    `HOME` there to give Codex's shells a real home). The npm package's helper directory (`codex-path`,
    holding `rg`) goes in front of PATH when it sits beside the binary.
    """
    source = os.environ if host_env is None else host_env
    env = {name: source[name] for name in ENV_PASSTHROUGH if name in source}
    helpers = Path(binary).resolve().parent.parent / "codex-path"
    if helpers.is_dir():
        env["PATH"] = os.pathsep.join(p for p in (str(helpers), env.get("PATH", "")) if p)
    env["CODEX_HOME"] = codex_home
    env["HOME"] = codex_home
    for name, value in config.env.items():
        if value is None:
            env.pop(name, None)
        else:
            env[name] = value
    return env


def render_config_toml(config: AppServerConfig) -> str:
    """The `config.toml` every CODEX_HOME of this pool gets."""
    header = "# written by clawharness (plugins.entries.codex.config.appServer.config)\n"
    return header + dumps(merge(BASE_CODEX_CONFIG, config.config))
