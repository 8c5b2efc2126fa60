"""Warnings about a config that validates: things that load but are likely mistakes.

- `unknown-key`: a key this host does not know (kept, ignored), with the closest known
  key when it looks misspelled;
- `unknown-tool`: a tool name in an allow/deny list that is no built-in tool (it only
  matches a plugin tool of that exact name, so a typo in `deny` denies nothing);
- `gateway-token-missing`: `gateway.auth.mode` "token" with no token in the config or
  the environment (`clawharness serve` refuses to start);
- `env-var-missing`: a provider `apiKey: "${VAR}"` whose variable is not set (turns on
  that provider fail), or an MCP server's `env` / `headers` value referring to one (the
  server is not started); checked only when an environment is given;
- the legacy runtime config `doctor --fix` repairs (`config.legacy`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any, Final

from pydantic import BaseModel

from clawharness.config.checks import KNOWN_TOOL_NAMES
from clawharness.config.legacy import legacy_problems
from clawharness.config.schema import ClawConfig, ToolsConfig
from clawharness.config.wording import closest
from clawharness.names.mcp_names import assign_mcp_catalog_safe_server_names
from clawharness.names.tool_groups import normalize_tool_name
from clawharness.problems import ConfigProblem, KeyPath

__all__ = ["GATEWAY_TOKEN_ENV_VARS", "config_warnings"]

GATEWAY_TOKEN_ENV_VARS: Final = ("CLAWHARNESS_GATEWAY_TOKEN", "OPENCLAW_GATEWAY_TOKEN")
#: the `${VAR}` form `models.routes.expand_secret` reads from the environment
_ENV_REF: Final = re.compile(r"^\$\{([A-Za-z_][A-Za-z0-9_]*)\}$")
#: `${VAR}` anywhere in an MCP server's env or header value (clawharness.mcp.specs)
_ANY_ENV_REF: Final = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")


def _unknown_keys(model: BaseModel, prefix: KeyPath) -> Iterator[ConfigProblem]:
    known = [info.alias or name for name, info in type(model).model_fields.items()]
    for key in model.model_extra or {}:
        guess = closest(key, known)
        hint = f"did you mean {guess!r}?" if guess else None
        yield ConfigProblem(f"unknown key {key!r} (ignored)", (*prefix, key), hint, "warning",
                            "unknown-key")
    for name, info in type(model).model_fields.items():
        value = getattr(model, name)
        child: KeyPath = (*prefix, info.alias or name)
        if isinstance(value, BaseModel):
            yield from _unknown_keys(value, child)
        elif isinstance(value, dict):
            for key, item in value.items():
                if isinstance(item, BaseModel):
                    yield from _unknown_keys(item, (*child, key))
        elif isinstance(value, list):
            for index, item in enumerate(value):
                if isinstance(item, BaseModel):
                    yield from _unknown_keys(item, (*child, index))


def _unknown_tools(tools: ToolsConfig, prefix: KeyPath,
                   mcp_prefixes: tuple[str, ...] = ()) -> Iterator[ConfigProblem]:
    lists = (("allow", tools.allow or []), ("deny", tools.deny), ("alsoAllow", tools.also_allow))
    choices = sorted(KNOWN_TOOL_NAMES)
    for key, entries in lists:
        for index, entry in enumerate(entries):
            name = normalize_tool_name(entry)
            if "*" in name or name.startswith("group:") or name in KNOWN_TOOL_NAMES:
                continue
            if name.startswith(mcp_prefixes):
                continue  # a configured MCP server's tool (`<server>__<tool>`)
            guess = closest(name, choices)
            yield ConfigProblem(
                f"{entry!r} is not a built-in tool: it matches only a plugin tool of that name",
                (*prefix, key, index),
                f"did you mean {guess!r}?" if guess else "check the spelling if no plugin "
                "provides it", "warning", "unknown-tool")


def config_warnings(config: ClawConfig, raw: Mapping[str, Any],
                    env: Mapping[str, str] | None = None) -> list[ConfigProblem]:
    """Every warning for a config that validated (`raw` is the decoded file)."""
    found = list(_unknown_keys(config, ()))
    mcp = _mcp_tool_prefixes(config)
    found.extend(_unknown_tools(config.tools, ("tools",), mcp))
    for agent_id, entry in config.agents.entries.items():
        if entry.tools is not None:
            found.extend(_unknown_tools(entry.tools, ("agents", "entries", agent_id, "tools"),
                                        mcp))
    auth = config.gateway.auth
    if ("gateway" in raw and auth.mode == "token" and not auth.token
            and not any((env or {}).get(name) for name in GATEWAY_TOKEN_ENV_VARS)):
        found.append(ConfigProblem(
            'gateway.auth.mode is "token" but no token is set: clawharness serve will refuse '
            "to start", ("gateway", "auth", "token"),
            "set gateway.auth.token or OPENCLAW_GATEWAY_TOKEN, or pass a token to serve "
            "(--token)", "warning", "gateway-token-missing"))
    if env is not None:
        found.extend(_missing_env_vars(config, env))
    found.extend(legacy_problems(raw))
    return found


def _mcp_tool_prefixes(config: ClawConfig) -> tuple[str, ...]:
    """`<safe server name>__` of each enabled MCP server, as policy entries name its tools."""
    enabled = [name for name, entry in config.mcp.servers.items() if entry.enabled]
    safe = assign_mcp_catalog_safe_server_names(enabled)
    return tuple(normalize_tool_name(f"{safe[name]}__") for name in enabled)


def _missing_env_vars(config: ClawConfig, env: Mapping[str, str]) -> Iterator[ConfigProblem]:
    for server_name, server in config.mcp.servers.items():
        if not server.enabled:
            continue
        for kind, values in (("env", server.env), ("headers", server.headers)):
            for key, value in values.items():
                for var in _ANY_ENV_REF.findall(value):
                    if var not in env:
                        yield ConfigProblem(
                            f"refers to the environment variable {var}, which is not set "
                            f"here: MCP server {server_name!r} will not be started",
                            ("mcp", "servers", server_name, kind, key),
                            f"export {var} before running", "warning", "env-var-missing")
    for provider_id, provider in config.models.providers.items():
        match = _ENV_REF.match((provider.api_key or "").strip())
        if match and match.group(1) not in env:
            yield ConfigProblem(
                f"reads the environment variable {match.group(1)}, which is not set here: "
                f"turns on provider {provider_id!r} will fail",
                ("models", "providers", provider_id, "apiKey"),
                f"export {match.group(1)} before running, or write the key itself",
                "warning", "env-var-missing")
