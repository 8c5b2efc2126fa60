"""What a turn that did not end `ok` tells its caller: a message and JSON-keyed details.

A harness reports a failure as `AttemptTerminal.error` (text) and, when it knows more,
`AttemptTerminal.details` (a `type` code, `provider`, `url`, `hint`, ...). The turn adds
what the host knows about the attempt — the model, its provider and endpoint, the runtime,
the turn's time budget — so that "timeout" becomes "the turn timed out after 30 s waiting
for provider "local" at http://127.0.0.1:8123/v1" with what to do under it, or, when the
deadline passed while a tool ran (`phase` "tool_execution", the tool in `details["tool"]`),
"the turn timed out after 30 s while tool "exec" was running". Pure.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from clawharness.harness.types import AttemptTerminal, ResolvedModel

__all__ = ["TurnFailure", "describe_failure"]

_TIMEOUT_HINT = "give the turn longer with --timeout or agents.defaults.timeoutSeconds"


@dataclass(frozen=True, slots=True)
class TurnFailure:
    """Why a turn did not end `ok`: the message and its JSON-keyed details (with `type`)."""

    message: str
    details: dict[str, Any]

    @property
    def type(self) -> str:
        return str(self.details.get("type") or "turn_failed")


def describe_failure(
    terminal: AttemptTerminal, *, model: ResolvedModel, url: str | None, runtime: str,
    builtin: bool, timeout_seconds: float | None,
) -> TurnFailure | None:
    """The failure of a turn that ended with `terminal` (None when it ended `ok`).

    `url` is the endpoint the built-in runtime talked to (plugin runtimes own theirs).
    """
    if terminal.kind == "ok":
        return None
    ref = f"{model.provider}/{model.model_id}"
    details: dict[str, Any] = dict(terminal.details or {})
    details.setdefault("provider", model.provider)
    details.setdefault("model", ref)
    if builtin and url is not None:
        details.setdefault("url", url)
    details.setdefault("runtime", runtime)
    if terminal.kind == "timeout":
        details.setdefault("type", "timeout")
        budget = f" after {timeout_seconds:g} s" if timeout_seconds else ""
        if terminal.phase == "tool_execution":
            tool = details.get("tool")
            running = f'tool "{tool}"' if isinstance(tool, str) and tool else "a tool"
            details.setdefault("phase", "tool_execution")
            message = (f"the turn timed out{budget} while {running} was running "
                       f"(model {ref}); the call was stopped and its result says so")
            details.setdefault("hint", "the tool needed longer than the turn had: give the "
                                       f"command its own shorter timeout, or {_TIMEOUT_HINT}")
        elif builtin:
            where = f" at {details['url']}" if details.get("url") else ""
            message = (f'the turn timed out{budget} waiting for provider "{model.provider}"'
                       f"{where} (model {model.model_id})")
            details.setdefault("hint", f"is the model server{where} answering? or "
                                       f"{_TIMEOUT_HINT}")
        else:
            message = f"the turn timed out{budget} in runtime {runtime} (model {ref})"
            details.setdefault("hint", _TIMEOUT_HINT)
        return TurnFailure(message, details)
    if terminal.kind == "aborted":
        details.setdefault("type", "aborted")
        return TurnFailure(terminal.error or "the turn was aborted", details)
    details.setdefault("type", "turn_failed")
    message = terminal.error or f"the turn failed in runtime {runtime} (model {ref})"
    return TurnFailure(message, details)
