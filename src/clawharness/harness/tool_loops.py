"""Tool loops: a turn that keeps calling tools without getting anywhere is ended.

Two rules (`tools.loopDetection`):

- **the same call in a row**: the same tool with the same arguments `same_call_limit`
  times one after another;
- **no progress**: `no_progress_limit` calls in a row none of which brought anything the
  attempt had not seen (a call is progress when its tool, arguments and result together
  are new: a cycle A, B, A, B with the same results makes none).

The host makes one `ToolLoopGuard` per attempt (`AttemptParams.tool_loops`); the SDK's
tool-call routine feeds it every settled call. Once it trips it stays tripped: the
built-in runtime ends the attempt at once, a native runtime has every further tool call
refused, and the host reports the turn's outcome as `tool_loop`. Pure and synchronous.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final, Literal

from clawharness._json import JsonValue
from clawharness._json_text import dumps_sorted

__all__ = ["TOOL_LOOP", "ToolLoop", "ToolLoopGuard", "ToolLoopLimits"]

#: the outcome type (`TurnResult.error_type`) of a turn ended in a tool loop
TOOL_LOOP: Final = "tool_loop"


@dataclass(frozen=True, slots=True)
class ToolLoopLimits:
    """When a loop is declared (see the module docstring)."""

    same_call_limit: int = 5
    no_progress_limit: int = 12


@dataclass(frozen=True, slots=True)
class ToolLoop:
    """A tripped guard: which rule, on which tool, after how many calls."""

    rule: Literal["same-call", "no-progress"]
    tool_name: str
    calls: int

    @property
    def message(self) -> str:
        if self.rule == "same-call":
            return (f"the turn was ended: it called {self.tool_name} with the same arguments "
                    f"{self.calls} times in a row")
        return (f"the turn was ended: its last {self.calls} tool calls (the last one "
                f"{self.tool_name}) brought nothing new")

    @property
    def hint(self) -> str:
        key = "sameCallLimit" if self.rule == "same-call" else "noProgressLimit"
        return (f"ask differently, or raise tools.loopDetection.{key} (or set "
                "tools.loopDetection.enabled false)")

    def details(self) -> dict[str, JsonValue]:
        """The failure details of the turn it ended (`AttemptTerminal.details`)."""
        return {"type": TOOL_LOOP, "rule": self.rule, "tool": self.tool_name,
                "calls": self.calls, "hint": self.hint}

    @property
    def note(self) -> str:
        """What the transcript records after the call that tripped it."""
        return f"[clawharness] {self.message}. {self.hint[0].upper()}{self.hint[1:]}."


def _digest(text: bytes) -> bytes:
    return hashlib.blake2b(text, digest_size=16).digest()


class ToolLoopGuard:
    """One attempt's loop detection: `observe` each settled tool call."""

    def __init__(self, limits: ToolLoopLimits) -> None:
        self.limits = limits
        self.tripped: ToolLoop | None = None
        self._last_call: bytes | None = None
        self._same_calls = 0
        self._seen: set[bytes] = set()
        self._idle_calls = 0

    def observe(self, tool_name: str, arguments: Mapping[str, Any], result: Any,
                is_error: bool) -> ToolLoop | None:
        """Count one settled call; the loop when this call trips the guard (once)."""
        if self.tripped is not None:
            return None
        # the JSON of [tool_name, arguments], and of [tool_name, arguments, result,
        # is_error] made from it (the arguments are encoded once)
        call_text = dumps_sorted([tool_name, arguments])
        call = _digest(call_text)
        self._same_calls = self._same_calls + 1 if call == self._last_call else 1
        self._last_call = call
        outcome = _digest(b"%s,%s,%s]" % (call_text[:-1], dumps_sorted(result),
                                          b"true" if is_error else b"false"))
        if outcome in self._seen:
            self._idle_calls += 1
        else:
            self._seen.add(outcome)
            self._idle_calls = 0
        if self._same_calls >= self.limits.same_call_limit:
            self.tripped = ToolLoop("same-call", tool_name, self._same_calls)
        elif self._idle_calls >= self.limits.no_progress_limit:
            self.tripped = ToolLoop("no-progress", tool_name, self._idle_calls)
        return self.tripped
