"""What the gateway uses of `Host` (structural: `clawharness.host.Host` satisfies it).

Keeping this narrow lets the protocol layer be tested with a small fake host, and makes
the gateway's dependence on the core explicit: it never assembles core parts itself.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, Protocol

from clawharness._json import JsonValue
from clawharness.attempt.turn import TurnOptions
from clawharness.config.schema import ClawConfig
from clawharness.harness import NativeHandoff
from clawharness.records.compaction import CompactionResult
from clawharness.records.turn_result import TurnResult
from clawharness.sessions import AdoptionResult, ForkResult
from clawharness.store import SessionRecord, TranscriptEntry
from clawharness.subagents import SubagentManager

__all__ = ["GatewayHost", "context_tokens", "default_model", "status_report", "turn_explanation"]


class GatewayHost(Protocol):
    """The `Host` surface the gateway calls."""

    config: ClawConfig
    state_dir: Path
    env: Mapping[str, str]
    #: the sub-agents its sessions spawned (`sessions.children`, `sessions.kill`)
    @property
    def subagents(self) -> SubagentManager: ...

    def default_agent_id(self) -> str: ...

    def session_key(self, key: str | None) -> str: ...

    async def run_turn(self, session_key: str | None, message: str,
                       options: TurnOptions | None = None) -> TurnResult: ...

    async def list_sessions(self, *, agent_id: str | None = None,
                            limit: int | None = None) -> list[SessionRecord]: ...

    async def get_session(self, key: str) -> SessionRecord: ...

    async def ensure_session(self, key: str, *,
                             meta: Mapping[str, JsonValue] | None = None) -> SessionRecord: ...

    async def history(self, key: str, *, last: int | None = None) -> list[TranscriptEntry]: ...

    async def reset_session(self, key: str, *, reason: str = "reset") -> SessionRecord: ...

    async def delete_session(self, key: str) -> bool: ...

    async def adopt_session(self, runtime: str, source: str, *, key: str | None = None,
                            agent_id: str | None = None, model: str | None = None,
                            home: str | None = None) -> AdoptionResult: ...

    async def handoff_session(self, key: str, runtime: str, *, home: str | None = None,
                              cwd: str | None = None) -> NativeHandoff: ...
    async def fork_session(self, key: str, *, at: str | None = None,
                           new_key: str | None = None, model: str | None = None,
                           runtime: str | None = None, settled: bool = True) -> ForkResult: ...
    async def compact_session(self, key: str, *,
                              focus: str | None = None) -> CompactionResult: ...


def default_model(host: GatewayHost, agent_id: str | None = None) -> str | None:
    """The primary model ref of `agent_id` (else the default agent), else the defaults'."""
    config = host.config
    entry = config.agents.entries.get(agent_id or host.default_agent_id())
    if entry is not None and entry.model is not None and entry.model.primary:
        return entry.model.primary
    model = config.agents.defaults.model
    return model.primary if model is not None else None


def context_tokens(host: GatewayHost, model_ref: str | None) -> int | None:
    """The context window of `model_ref` (the original's `contextTokens`), None when the
    config gives none."""
    return host.config.models.context_window(model_ref) if model_ref else None


async def status_report(host: GatewayHost) -> dict[str, Any]:
    """The effective runtime per agent/model (`clawharness status --json`'s shape),
    from `Host.status()`; a host without one reports nothing."""
    status = getattr(host, "status", None)
    if not callable(status):
        return {"agents": [], "sessions": [], "harnesses": [], "warnings": []}
    report = await status()
    to_json = getattr(report, "to_json", None)
    return dict(to_json() if callable(to_json) else report)


async def turn_explanation(host: GatewayHost, result: TurnResult) -> str:
    """Why the turn ran where it did, the line `clawharness agent` prints under a reply
    (`Host.explain_turn`; a host without one: from the result alone)."""
    explain = getattr(host, "explain_turn", None)
    if callable(explain):
        return str(await explain(result))
    from clawharness.harness.explain import explain_selection

    return explain_selection(result.runtime, result.selected_reason,
                             pinned=result.pinned_harness_id, session_key=result.session_key)
