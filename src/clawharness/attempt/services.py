"""What the turn asks of the host's plugins, as two small services (`TurnContext`): which
harness runs a route (`HarnessChoice`), and the plugins' hooks on a turn (`TurnHooks`).
`clawharness.plugins` provides both (`HarnessSelector`, `PluginHooks`); the turn runner
sees only these protocols, so it never reaches up into the plugin runtime."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from clawharness.harness.selection import SelectionDecision
from clawharness.harness.types import TransformToolResult
from clawharness.models.routes import Route
from clawharness.records.agent_end import AgentEnd

__all__ = ["HarnessChoice", "TurnHooks"]


class HarnessChoice(Protocol):
    """Harness selection over the registered harnesses and plugin providers."""

    @property
    def providers(self) -> Mapping[str, Any]:
        """Providers registered by plugins (e.g. `acp`), by id."""
        ...

    def select(self, *, agent_id: str, route: Route, pinned: str | None,
               session_key: str, override: str | None = None) -> SelectionDecision:
        """The harness for a turn on `route` (`pinned`: the session's harness;
        `override`: a runtime chosen for the session before it has one)."""
        ...


class TurnHooks(Protocol):
    """What plugins registered to act on a turn."""

    def tool_result_transform(self, runtime_id: str) -> TransformToolResult | None:
        """The tool-result middleware bound for one runtime; None when none applies."""
        ...

    @property
    def listens_after_turn(self) -> bool:
        """Whether any agent_end hook is registered (no payload is built for none)."""
        ...

    def after_turn(self, payload: AgentEnd) -> None:
        """Start the agent_end side effects (never awaited by the reply path)."""
        ...
