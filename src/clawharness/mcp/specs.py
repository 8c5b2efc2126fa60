"""Configured MCP servers as typed specs: what the host connects to and harnesses project.

A spec keeps `env` and `headers` as configured (`${ENV_VAR}` references unexpanded);
`resolve_secrets` expands them only when a connection starts, so a resolved secret lives
in memory only and never reaches a message (`repr` hides the values).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

from clawharness.config.schema import McpConfig
from clawharness.errors import McpConnectError
from clawharness.harness.mcp_servers import McpServerLaunch
from clawharness.names.mcp_names import assign_mcp_catalog_safe_server_names

__all__ = ["McpServerSpec", "McpTransport", "launch_of", "resolve_secrets", "server_specs"]

McpTransport = Literal["stdio", "streamable-http", "sse"]
_ENV_REF = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")


@dataclass(frozen=True, slots=True)
class McpServerSpec:
    """One enabled `mcp.servers.<name>` entry."""

    name: str
    #: the model-facing server name (sanitized, unique; see tools/mcp_names.py)
    safe_name: str
    transport: McpTransport
    command: str | None = None
    args: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict, repr=False)
    cwd: str | None = None
    url: str | None = None
    headers: Mapping[str, str] = field(default_factory=dict, repr=False)
    connection_timeout: float = 30.0
    tool_timeout: float = 60.0
    max_result_chars: int = 100_000
    include: tuple[str, ...] | None = None
    exclude: tuple[str, ...] = ()
    enabled: bool = True

    @property
    def key_path(self) -> str:
        return f"mcp.servers.{self.name}"

    def to_json(self) -> dict[str, object]:
        """The spec as `mcp list --json` shows it: secrets by key name only."""
        return {"name": self.name, "safeName": self.safe_name or None,
                "enabled": self.enabled, "transport": self.transport,
                "command": self.command, "args": list(self.args), "cwd": self.cwd,
                "url": _without_userinfo(self.url) if self.url else None,
                "envKeys": sorted(self.env), "headerKeys": sorted(self.headers),
                "connectionTimeoutMs": round(self.connection_timeout * 1000),
                "toolTimeoutMs": round(self.tool_timeout * 1000),
                "maxResultChars": self.max_result_chars,
                "include": None if self.include is None else list(self.include),
                "exclude": list(self.exclude), "launch": self.launch_summary()}

    def launch_summary(self) -> str:
        """How the server is reached, with no secret in it (`env`/`headers` by name only)."""
        if self.transport == "stdio":
            text = " ".join([self.command or "", *self.args]).strip()
            if self.env:
                text += f" (env: {', '.join(sorted(self.env))})"
            return text
        text = f"{self.transport} {_without_userinfo(self.url or '')}"
        if self.headers:
            text += f" (headers: {', '.join(sorted(self.headers))})"
        return text


def _without_userinfo(url: str) -> str:
    return re.sub(r"^([a-z][a-z0-9+.-]*://)[^/@]*@", r"\1***@", url, flags=re.IGNORECASE)


def server_specs(config: McpConfig, *, disabled: bool = False) -> tuple[McpServerSpec, ...]:
    """The enabled servers (with `disabled`, every one), in declaration order, with their
    model-facing names (assigned among the enabled servers, as turns see them)."""
    enabled = {name: entry for name, entry in config.servers.items() if entry.enabled}
    safe = assign_mcp_catalog_safe_server_names(enabled)
    shown = config.servers if disabled else enabled
    specs: list[McpServerSpec] = []
    for name, entry in shown.items():
        specs.append(McpServerSpec(
            name=name, safe_name=safe.get(name, ""), enabled=entry.enabled,
            transport=entry.transport or "stdio",
            command=entry.command, args=tuple(entry.args), env=dict(entry.env), cwd=entry.cwd,
            url=entry.url, headers=dict(entry.headers),
            connection_timeout=entry.connection_timeout_ms / 1000,
            tool_timeout=entry.tool_timeout_ms / 1000, max_result_chars=entry.max_result_chars,
            include=None if entry.tools.include is None else tuple(entry.tools.include),
            exclude=tuple(entry.tools.exclude)))
    return tuple(specs)


def resolve_secrets(spec: McpServerSpec, env: Mapping[str, str]
                    ) -> tuple[dict[str, str], dict[str, str]]:
    """`(env, headers)` with `${VAR}` references expanded from `env`.

    An unset variable raises `McpConnectError` naming the key and the variable (never a
    value).
    """
    def expand(kind: str, values: Mapping[str, str]) -> dict[str, str]:
        out: dict[str, str] = {}
        for key, raw in values.items():
            missing = [n for n in _ENV_REF.findall(raw) if n not in env]
            if missing:
                names = ", ".join(f"${{{n}}}" for n in missing)
                raise McpConnectError(
                    f"{spec.key_path}.{kind}.{key} refers to {names}, which is not set in "
                    "the environment", server=spec.name,
                    hint=f"export {missing[0]} before starting the host")
            out[key] = _ENV_REF.sub(lambda m: env[m.group(1)], raw)
        return out

    return expand("env", spec.env), expand("headers", spec.headers)


def launch_of(spec: McpServerSpec, env: Mapping[str, str]) -> McpServerLaunch:
    """`spec` as a native runtime starts it (secrets resolved; `McpConnectError` when a
    referenced variable is not set)."""
    resolved_env, headers = resolve_secrets(spec, env)
    return McpServerLaunch(
        name=spec.name, safe_name=spec.safe_name, transport=spec.transport,
        command=spec.command, args=spec.args, env=resolved_env, cwd=spec.cwd, url=spec.url,
        headers=headers, connection_timeout=spec.connection_timeout,
        tool_timeout=spec.tool_timeout, include=spec.include, exclude=spec.exclude)
