"""`ToolCallMeta`: one tool call of an attempt, as its harness reports it.

The original's `toolMetas[]` (`{toolName, toolCallId, isError, error, asyncStarted}`)
as a record. Harnesses build it; the host reads it for finalization, the turn's result
and the `agent_end` event. `to_wire`/`from_wire` are the original's JSON shape, for the
plugin-facing `agent_end` payload and for plugin harnesses that still report dicts.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from clawharness._json import JsonValue

__all__ = ["ToolCallMeta"]


@dataclass(frozen=True, slots=True)
class ToolCallMeta:
    """One tool call an attempt made and how it ended."""

    tool_name: str
    tool_call_id: str | None = None
    is_error: bool = False
    #: what went wrong, when `is_error` and the harness said
    error: str | None = None
    #: the call started work that is still running (an async tool): no finalization
    async_started: bool = False

    def to_wire(self) -> dict[str, JsonValue]:
        """The original's `toolMetas[]` entry."""
        out: dict[str, JsonValue] = {"toolName": self.tool_name}
        if self.tool_call_id is not None:
            out["toolCallId"] = self.tool_call_id
        out["isError"] = self.is_error
        if self.error is not None:
            out["error"] = self.error
        if self.async_started:
            out["asyncStarted"] = True
        return out

    @classmethod
    def from_wire(cls, value: Mapping[str, object]) -> ToolCallMeta:
        """A `toolMetas[]` entry a plugin reported as JSON; text fields of the wrong type
        count as absent (a missing name reads as ""), flags are read for truth."""
        name, call_id, error = value.get("toolName"), value.get("toolCallId"), value.get("error")
        return cls(tool_name=name if isinstance(name, str) else "",
                   tool_call_id=call_id if isinstance(call_id, str) else None,
                   is_error=bool(value.get("isError")),
                   error=error if isinstance(error, str) else None,
                   async_started=bool(value.get("asyncStarted")))
