"""`AgentEnd`: what the `agent_end` hooks learn when a turn ends.

The turn builds it typed; the plugin-facing `agent_end(event, ctx)` hooks receive the
original's JSON shapes (`{runId, sessionKey, terminal, text, toolMetas, usage}` and
`{runId, agentId, sessionKey, sessionId, harnessId, workspaceDir}`), converted once,
where the hooks are called (`clawharness.attempt.side_effects`).
"""

from __future__ import annotations

from dataclasses import dataclass

from clawharness._json import JsonValue
from clawharness.records.tool_calls import ToolCallMeta
from clawharness.records.turn_result import TerminalKind
from clawharness.records.usage import Usage

__all__ = ["AgentEnd", "AgentEndContext", "AgentEndEvent"]


@dataclass(frozen=True, slots=True)
class AgentEndEvent:
    """How the turn ended."""

    run_id: str
    session_key: str
    terminal: TerminalKind
    #: the turn's final text (before NO_REPLY suppression)
    text: str
    tool_metas: tuple[ToolCallMeta, ...] = ()
    usage: Usage | None = None

    def to_wire(self) -> dict[str, JsonValue]:
        return {"runId": self.run_id, "sessionKey": self.session_key,
                "terminal": self.terminal, "text": self.text,
                "toolMetas": [meta.to_wire() for meta in self.tool_metas],
                "usage": None if self.usage is None else self.usage.to_wire()}


@dataclass(frozen=True, slots=True)
class AgentEndContext:
    """Where the turn ran."""

    run_id: str
    agent_id: str
    session_key: str
    session_id: str
    harness_id: str
    workspace_dir: str

    def to_wire(self) -> dict[str, JsonValue]:
        return {"runId": self.run_id, "agentId": self.agent_id,
                "sessionKey": self.session_key, "sessionId": self.session_id,
                "harnessId": self.harness_id, "workspaceDir": self.workspace_dir}


@dataclass(frozen=True, slots=True)
class AgentEnd:
    """The `agent_end` payload: the event and its context."""

    event: AgentEndEvent
    ctx: AgentEndContext

    def to_wire(self) -> dict[str, JsonValue]:
        """`{event, ctx}` in the original's shape."""
        return {"event": self.event.to_wire(), "ctx": self.ctx.to_wire()}
