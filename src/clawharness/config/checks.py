"""The value checks start-up makes, as pure functions the schema's validators call.

Because they run inside validation, `config validate`, every command's start-up
(`load_config`) and `doctor` see the same errors, all of them in one pass, each at its
key path. A check that fails raises `CheckFailed` with the message, a hint and a stable
code (`messages.problems_from_validation_error` turns it into a `ConfigProblem`).

The rules fail closed: a tool profile or `group:` name this host does not know would
restrict nothing, so it is an error, never a silent no-op.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable
from typing import Final
from urllib.parse import urlsplit

from clawharness.config.wording import closest, one_of
from clawharness.names import store_url_error
from clawharness.names.tool_groups import TOOL_GROUPS, TOOL_NAME_ALIASES, normalize_tool_name
from clawharness.names.tool_profiles import TOOL_PROFILES

__all__ = [
    "BIND_ALIASES",
    "KNOWN_TOOL_NAMES",
    "OFFICIAL_API_HOSTS",
    "CheckFailed",
    "bind_host",
    "check_base_url",
    "check_bind",
    "check_store_url",
    "check_tool_policy_entry",
    "check_tool_profile",
    "is_loopback_host",
    "plaintext_official_host",
]

BIND_ALIASES: Final = {"loopback": "127.0.0.1", "localhost": "127.0.0.1",
                       "lan": "0.0.0.0", "all": "0.0.0.0"}
#: public model APIs a key must never be sent to in plaintext
OFFICIAL_API_HOSTS: Final = frozenset({"api.openai.com", "chatgpt.com", "api.anthropic.com"})
#: tool ids this host knows by name (built-in tools, profile members, group members, aliases)
KNOWN_TOOL_NAMES: Final = frozenset(
    {tool for members in TOOL_GROUPS.values() for tool in members}
    | {tool for members in TOOL_PROFILES.values() if members for tool in members
       if not tool.startswith("group:")}
    | set(TOOL_NAME_ALIASES)
)


class CheckFailed(ValueError):
    """A value start-up refuses: what was wrong, what to do, and a stable problem code."""

    def __init__(self, message: str, *, hint: str | None = None, code: str = "config-invalid",
                 show_value: bool = True) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint
        self.code = code
        self.show_value = show_value


def _suggest(value: str, choices: Iterable[str]) -> str | None:
    return closest(value, sorted(choices))


def check_tool_profile(value: str | None) -> str | None:
    if value is None or value in TOOL_PROFILES:
        return value
    guess = _suggest(value, TOOL_PROFILES)
    hint = f"did you mean {guess!r}? " if guess else ""
    raise CheckFailed(
        f"unknown tool profile {value!r}: an unknown profile would restrict nothing, so it is "
        "refused", hint=f"{hint}valid profiles: {one_of(TOOL_PROFILES)}",
        code="unknown-tool-profile", show_value=False)


def check_tool_policy_entry(value: str) -> str:
    """A `tools.allow/deny/alsoAllow` entry: a tool name, a `*` glob, or a known group."""
    name = normalize_tool_name(value)
    if not name:
        raise CheckFailed("an empty tool name matches nothing", code="invalid-tool-name",
                          hint="remove the entry, or write a tool name, a glob or group:<name>")
    if name.startswith("group:") and name not in TOOL_GROUPS:
        guess = _suggest(name, TOOL_GROUPS)
        hint = f"did you mean {guess!r}? " if guess else ""
        raise CheckFailed(
            f"unknown tool group {value!r}: an unknown group would match no tool, so it is "
            "refused", hint=f"{hint}valid groups: {one_of(TOOL_GROUPS)}",
            code="unknown-tool-group", show_value=False)
    return value


def check_store_url(value: str | None) -> str | None:
    if value is None:
        return None
    problem = store_url_error(value)
    if problem is not None:
        raise CheckFailed(problem, code="invalid-store-url",
                          hint="remove store.url to use the default SQLite file in the state dir")
    return value


def check_cluster_url(value: str | None) -> str | None:
    if value is None:
        return None
    from clawharness.names.urls import cluster_url_error

    problem = cluster_url_error(value)
    if problem is not None:
        raise CheckFailed(problem, code="invalid-cluster-url",
                          hint="write it as temporal://HOST:PORT, or remove cluster.url to run "
                               "turns in-process")
    return value


def bind_host(bind: str) -> str | None:
    """`loopback` -> 127.0.0.1, `lan` -> 0.0.0.0, an address or host name as given, or None."""
    text = bind.strip()
    if text in BIND_ALIASES:
        return BIND_ALIASES[text]
    try:
        return str(ipaddress.ip_address(text.strip("[]")))
    except ValueError:
        if text and all(part.isalnum() or part == "-" for part in text.split(".")):
            return text
        return None


def is_loopback_host(host: str) -> bool:
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return host == "localhost"


def check_bind(value: str) -> str:
    if bind_host(value) is None:
        raise CheckFailed("not a bind address", code="invalid-gateway-bind",
                          hint='use "loopback", "lan", "all", an IP address or a host name')
    return value


def plaintext_official_host(url: str) -> str | None:
    """The official API host an `http://` URL points at, if it does."""
    text = url.strip()
    if not text.lower().startswith("http://"):
        return None
    try:
        host = (urlsplit(text).hostname or "").lower()
    except ValueError:
        return None
    return host if host in OFFICIAL_API_HOSTS else None


def check_base_url(value: str | None) -> str | None:
    if value is None:
        return None
    host = plaintext_official_host(value)
    if host is not None:
        fixed = "https://" + value.strip()[len("http://"):]
        raise CheckFailed(
            f"plaintext HTTP to the official endpoint {host} would send the API key "
            "unencrypted, so it is refused",
            hint=f"use {fixed!r} (clawharness doctor --fix rewrites it)",
            code="plaintext-official-endpoint", show_value=False)
    return value
