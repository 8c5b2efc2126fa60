"""The Codex app-server wire format: JSON lines over stdio, and the version gate.

One JSON object per line and no `"jsonrpc"` field:

    {"id", "method", "params"}   a request (either side; the server numbers its own from 0)
    {"id", "result"}             a response
    {"id", "error"}              an error response (`{code, message, data?}`)
    {"method", "params"}         a notification

The server's version comes from the `initialize` result's `userAgent`
(`<clientInfo.name>/<version> (<os>; <arch>) ...`): the token after the first `/`.
`check_server_version` refuses older, malformed and unversioned servers and warns above
the newest version this harness was validated against.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from clawharness.harnesses.codex.errors import CodexProtocolError, CodexVersionError
from clawharness.plugin_sdk.agent_harness_process import decode_json_frame

__all__ = [
    "CLIENT_NAME",
    "CLIENT_TITLE",
    "MAX_VALIDATED_CODEX_VERSION",
    "MIN_CODEX_VERSION",
    "OPT_OUT_NOTIFICATIONS",
    "Incoming",
    "Notification",
    "Request",
    "Response",
    "ServerIdentity",
    "Version",
    "check_server_version",
    "decode_line",
    "encode",
    "initialize_params",
    "parse_server_version",
    "parse_version",
]

#: the oldest app-server this harness accepts (explicit custom app-servers, digest §0)
MIN_CODEX_VERSION = "0.149.0"
#: the newest app-server this harness was validated against; newer ones only warn
MAX_VALIDATED_CODEX_VERSION = "0.169.0"

CLIENT_NAME = "clawharness"
CLIENT_TITLE = "clawharness"

#: notifications the harness never reads; the server may skip sending them
OPT_OUT_NOTIFICATIONS: tuple[str, ...] = (
    "turn/diff/updated",
    "item/commandExecution/outputDelta",
    "item/commandExecution/terminalInteraction",
    "item/fileChange/outputDelta",
    "item/fileChange/patchUpdated",
    "item/reasoning/summaryPartAdded",
    "item/plan/delta",
    "item/mcpToolCall/progress",
    "remoteControl/status/changed",
    "thread/readState/changed",
    "account/rateLimits/updated",
)

_VERSION = re.compile(
    r"^v?(\d+)\.(\d+)\.(\d+)(?:-([0-9A-Za-z.-]+))?(?:\+[0-9A-Za-z.-]+)?$")


@dataclass(frozen=True, slots=True, order=False)
class Version:
    """A semantic version; a pre-release sorts before its release."""

    major: int
    minor: int
    patch: int
    prerelease: str | None = None

    def key(self) -> tuple[int, int, int, int, tuple[tuple[int, int | str], ...]]:
        """A sort key following semver precedence."""
        if self.prerelease is None:
            return (self.major, self.minor, self.patch, 1, ())
        parts: list[tuple[int, int | str]] = []
        for piece in self.prerelease.split("."):
            parts.append((0, int(piece)) if piece.isdigit() else (1, piece))
        return (self.major, self.minor, self.patch, 0, tuple(parts))

    def __lt__(self, other: Version) -> bool:
        return self.key() < other.key()

    def __le__(self, other: Version) -> bool:
        return self.key() <= other.key()

    def __gt__(self, other: Version) -> bool:
        return self.key() > other.key()

    def __ge__(self, other: Version) -> bool:
        return self.key() >= other.key()

    def __str__(self) -> str:
        base = f"{self.major}.{self.minor}.{self.patch}"
        return f"{base}-{self.prerelease}" if self.prerelease else base


def parse_version(text: str) -> Version | None:
    """`0.169.0`, `v0.170.0-alpha.2` -> Version; anything else -> None."""
    match = _VERSION.match(text.strip())
    if match is None:
        return None
    major, minor, patch, pre = match.groups()
    return Version(int(major), int(minor), int(patch), pre)


def parse_server_version(user_agent: str | None) -> str | None:
    """The version token of an app-server user agent (after the first `/`), or None."""
    if not isinstance(user_agent, str) or "/" not in user_agent:
        return None
    rest = user_agent.split("/", 1)[1].strip()
    token = rest.split(maxsplit=1)[0] if rest else ""
    return token or None


@dataclass(frozen=True, slots=True)
class ServerIdentity:
    """What the handshake proved about the server (`CodexAppServerRuntimeIdentity`)."""

    server_version: str
    user_agent: str | None = None
    codex_home: str | None = None
    platform_family: str | None = None
    platform_os: str | None = None
    #: set when the version is newer than the validated maximum
    warning: str | None = None


def check_server_version(
    result: Any, *, min_version: str = MIN_CODEX_VERSION,
    max_validated_version: str | None = MAX_VALIDATED_CODEX_VERSION,
) -> ServerIdentity:
    """Admit or refuse a server from its `initialize` result.

    Refuses (CodexVersionError) a result without a parseable version, and a version
    below `min_version`. Above `max_validated_version` the identity carries a warning.
    """
    if not isinstance(result, Mapping):
        raise CodexProtocolError(
            f"Codex app-server initialize returned {type(result).__name__}, not an object")
    user_agent = result.get("userAgent")
    agent_text = user_agent if isinstance(user_agent, str) and user_agent.strip() else None
    token = parse_server_version(agent_text)
    if token is None:
        raise CodexVersionError(
            "Codex app-server did not report a version in its initialize handshake "
            f"(userAgent={agent_text!r}); refusing an unversioned server. This harness needs "
            f"codex >= {min_version}.", user_agent=agent_text)
    version = parse_version(token)
    if version is None:
        raise CodexVersionError(
            f"Codex app-server reported a malformed version {token!r} (userAgent="
            f"{agent_text!r}); this harness needs codex >= {min_version}.",
            user_agent=agent_text, version=token)
    floor = parse_version(min_version)
    if floor is None:
        raise CodexVersionError(f"the configured minimum Codex version {min_version!r} is "
                                "not a version")
    if version < floor:
        raise CodexVersionError(
            f"Codex app-server {version} is older than the minimum supported {floor}; "
            "upgrade the @openai/codex package (npm install -g @openai/codex@latest).",
            user_agent=agent_text, version=str(version))
    warning = None
    ceiling = parse_version(max_validated_version) if max_validated_version else None
    if ceiling is not None and version > ceiling:
        warning = (f"Codex app-server {version} is newer than the newest validated version "
                   f"{ceiling}; continuing")

    def text(key: str) -> str | None:
        value = result.get(key)
        return value if isinstance(value, str) and value.strip() else None

    return ServerIdentity(str(version), agent_text, text("codexHome"), text("platformFamily"),
                          text("platformOs"), warning)


def initialize_params(client_version: str, *, opt_out: tuple[str, ...] = OPT_OUT_NOTIFICATIONS
                      ) -> dict[str, Any]:
    """The `initialize` request's params."""
    return {
        "clientInfo": {"name": CLIENT_NAME, "title": CLIENT_TITLE, "version": client_version},
        "capabilities": {"experimentalApi": True, "optOutNotificationMethods": list(opt_out)},
    }


# --- framing ----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Request:
    """A server-to-client request."""

    id: int | str
    method: str
    params: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Notification:
    """A notification (no id, no answer)."""

    method: str
    params: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Response:
    """An answer to one of our requests: `error` is None on success."""

    id: int | str
    result: Any = None
    error: dict[str, Any] | None = None


Incoming = Request | Notification | Response


def encode(message: Mapping[str, Any]) -> bytes:
    """One message as a JSON line."""
    return json.dumps(message, ensure_ascii=False, separators=(",", ":")).encode("utf-8") + b"\n"


def decode_line(line: bytes | str) -> Incoming | None:
    """Classify one line; None for a blank line or a shape that is none of the four.

    Raises ValueError for a line that is not JSON at all, and `InputLimitError` (a
    ValueError too) for one past the frame limits.
    """
    text = line.decode("utf-8") if isinstance(line, bytes) else line
    if not text.strip():
        return None
    data = decode_json_frame(text, what="the Codex app-server's output")
    if not isinstance(data, dict):
        return None
    raw_params = data.get("params")
    params: dict[str, Any] = raw_params if isinstance(raw_params, dict) else {}
    method = data.get("method")
    has_id = "id" in data and isinstance(data["id"], int | str) \
        and not isinstance(data["id"], bool)
    if isinstance(method, str):
        if has_id:
            return Request(data["id"], method, params)
        return Notification(method, params)
    if has_id:
        error = data.get("error")
        if error is not None:
            return Response(data["id"], None, error if isinstance(error, dict)
                            else {"message": str(error)})
        return Response(data["id"], data.get("result"))
    return None
