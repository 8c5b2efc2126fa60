"""Typed records at the bottom of the core: the values every layer passes around.

Frozen dataclasses with slots, importing nothing above `clawharness._json`,
`clawharness.errors` and the delivery payload record. Each record whose JSON shape is
fixed by the original (transcript usage, `toolMetas`, `agent_end`, the stored session
meta) or by this project's CLI (`agent --json`) has exactly one serialiser, beside it:

- `usage`: `Usage`, `normalize_usage` (any spelling in), `Usage.to_wire` (one shape out);
- `tool_calls`: `ToolCallMeta`, one tool call of an attempt;
- `turn_result`: `TurnResult`, `ModelFallback`, `ClusterPlacement`,
  `turn_result_to_wire`/`turn_result_from_wire`;
- `session_meta`: `SessionMeta`, converted at the store's edge;
- `compaction`: `CompactionResult`, what one compaction did;
- `fork_origin`: `ForkOrigin`, where a forked session and its copied entries came from;
- `agent_end`: `AgentEnd` (`AgentEndEvent`, `AgentEndContext`), converted where the
  plugin hooks are called.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from clawharness._faces import lazy_face

if TYPE_CHECKING:
    from clawharness.records.agent_end import AgentEnd, AgentEndContext, AgentEndEvent
    from clawharness.records.compaction import CompactionResult
    from clawharness.records.fork_origin import ForkOrigin
    from clawharness.records.session_meta import SessionMeta
    from clawharness.records.terminal_kind import TerminalKind, is_terminal_kind
    from clawharness.records.tool_calls import ToolCallMeta
    from clawharness.records.turn_result import (
        ClusterPlacement,
        ModelFallback,
        QueueDelivery,
        TurnResult,
        TurnResultWireError,
        turn_result_from_wire,
        turn_result_to_wire,
    )
    from clawharness.records.usage import ContextUsage, Usage, UsageCost, normalize_usage

__all__ = [
    "AgentEnd",
    "AgentEndContext",
    "AgentEndEvent",
    "ClusterPlacement",
    "CompactionResult",
    "ContextUsage",
    "ForkOrigin",
    "ModelFallback",
    "QueueDelivery",
    "SessionMeta",
    "TerminalKind",
    "ToolCallMeta",
    "TurnResult",
    "TurnResultWireError",
    "Usage",
    "UsageCost",
    "is_terminal_kind",
    "normalize_usage",
    "turn_result_from_wire",
    "turn_result_to_wire",
]

__getattr__, __dir__ = lazy_face(__name__, {
    "AgentEnd": "clawharness.records.agent_end",
    "AgentEndContext": "clawharness.records.agent_end",
    "AgentEndEvent": "clawharness.records.agent_end",
    "ClusterPlacement": "clawharness.records.turn_result",
    "CompactionResult": "clawharness.records.compaction",
    "ContextUsage": "clawharness.records.usage",
    "ForkOrigin": "clawharness.records.fork_origin",
    "ModelFallback": "clawharness.records.turn_result",
    "QueueDelivery": "clawharness.records.turn_result",
    "SessionMeta": "clawharness.records.session_meta",
    "TerminalKind": "clawharness.records.terminal_kind",
    "ToolCallMeta": "clawharness.records.tool_calls",
    "TurnResult": "clawharness.records.turn_result",
    "TurnResultWireError": "clawharness.records.turn_result",
    "Usage": "clawharness.records.usage",
    "UsageCost": "clawharness.records.usage",
    "is_terminal_kind": "clawharness.records.terminal_kind",
    "normalize_usage": "clawharness.records.usage",
    "turn_result_from_wire": "clawharness.records.turn_result",
    "turn_result_to_wire": "clawharness.records.turn_result",
})
