"""What the `acp` harness and its wire share, none of it needing the `acp` library: the
harness id, its error, an agent's config, tool names, reading a refused `session/load`,
and the failed result of a turn that never reached the agent."""

from __future__ import annotations

import os
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from clawharness.plugin_sdk.agent_harness import (
    AttemptParams,
    AttemptResult,
    AttemptTerminal,
    Message,
)
from clawharness.plugin_sdk.agent_harness_runtime import HarnessError

if TYPE_CHECKING:
    from acp import RequestError

__all__ = ["ACP_PROTOCOL_VERSION", "HARNESS_ID", "TOOL_KINDS", "AcpAgentConfig",
           "AcpHarnessError", "agent_environment", "canonical_tool_name",
           "load_refused_as_gone", "now_ms", "precheck_failure", "user_message"]

HARNESS_ID = "acp"
ACP_PROTOCOL_VERSION = 1

#: ACP tool kinds -> canonical host tool names (policy ids)
TOOL_KINDS: Mapping[str, str] = {
    "read": "read", "search": "read", "edit": "edit", "delete": "edit", "move": "edit",
    "execute": "exec", "fetch": "web_fetch",
}


class AcpHarnessError(HarnessError):
    code = "acp_harness_error"


#: JSON-RPC codes an agent answers `session/load` with when it has no such session (ACP's
#: "resource not found") or no `session/load` at all ("method not found")
_GONE_CODES = frozenset({-32002, -32601})
#: an agent's own words for an unknown session, in the message or the error's data
#: (claude-code-acp 0.16 throws "Session not found", sent as -32603 with data.details)
_GONE_WORDS = ("session not found", "unknown session", "no such session")


def load_refused_as_gone(error: RequestError) -> str | None:
    """What the agent said, when its refusal of `session/load` means the session does not
    exist (or cannot be loaded at all); None for any other failure, which must keep the
    binding."""
    data = error.data
    said = " ".join(str(part) for part in (
        str(error), *(data.values() if isinstance(data, Mapping) else (data,)))
        if part is not None)
    if error.code in _GONE_CODES or any(word in said.lower() for word in _GONE_WORDS):
        return f"session/load failed ({error.code}): {said}"
    return None


def canonical_tool_name(kind: str | None, title: str | None) -> str:
    """The policy id of an ACP tool call: by its kind, else a name from its title."""
    if kind and kind in TOOL_KINDS:
        return TOOL_KINDS[kind]
    if kind and kind not in ("other", "think", "switch_mode"):
        return kind
    word = (title or "tool").strip().split(" ")[0].strip("`").lower()
    return word or "tool"


@dataclass(frozen=True, slots=True)
class AcpAgentConfig:
    """One configured agent (`agents.<name>`)."""

    name: str
    command: tuple[str, ...]
    env: Mapping[str, str] = field(default_factory=dict)

    @staticmethod
    def parse(name: str, raw: Any) -> AcpAgentConfig:
        if not isinstance(raw, Mapping):
            raise AcpHarnessError(f"acp agent {name!r}: config must be an object")
        command = raw.get("command")
        if (not isinstance(command, list) or not command
                or not all(isinstance(p, str) and p for p in command)):
            raise AcpHarnessError(
                f"acp agent {name!r}: command must be a non-empty list of strings")
        env = raw.get("env") or {}
        if not isinstance(env, Mapping):
            raise AcpHarnessError(f"acp agent {name!r}: env must be a mapping")
        return AcpAgentConfig(name, tuple(command), {str(k): str(v) for k, v in env.items()})


def agent_environment(state: Path, agent_id: str,
                      agent: AcpAgentConfig) -> tuple[Path, dict[str, str]]:
    """An agent's HOME under the harness's state dir (made when missing), and the
    environment it runs in: built from nothing but PATH, HOME and its configured `env`."""
    safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in agent_id)
    home = state / "agents" / (safe or "default") / agent.name / "home"
    home.mkdir(parents=True, exist_ok=True)
    env = {"PATH": os.environ.get("PATH", "/usr/local/bin:/usr/bin:/bin"), "HOME": str(home),
           **agent.env}
    return home, env


def now_ms() -> int:
    return int(time.time() * 1000)


def user_message(prompt: str) -> Message:
    return {"role": "user", "content": [{"type": "text", "text": prompt}],
            "timestamp": now_ms()}


async def precheck_failure(params: AttemptParams, error: str) -> AttemptResult:
    message = user_message(params.prompt)
    if params.mirror is not None:
        await params.mirror([{**message, "__meta": {"idempotencyKey": f"{params.run_id}:user"}}])
    return AttemptResult(
        terminal=AttemptTerminal("failed", source="precheck", error=error),
        session_id_used=params.session_id, messages_snapshot=[message],
        agent_harness_id=HARNESS_ID, transcript_mirrored=params.mirror is not None)
