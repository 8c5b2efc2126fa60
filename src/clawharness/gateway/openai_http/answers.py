"""`TurnAnswer`: what the HTTP API says about a finished run, whatever endpoint renders it.

Both endpoints render the same facts (the reply text, how the turn ended, its tokens), and
an idempotent request's first answer is kept in the store to be rendered again for its
retries (`idempotency`), so the facts are one typed value with one JSON shape. Built from
the run service's `RunResult` by `answer_of`, the one place that reads a `TurnResult`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final, Literal

from clawharness.runs import RunResult

__all__ = ["NO_RESPONSE_TEXT", "Ending", "TurnAnswer", "answer_of"]

NO_RESPONSE_TEXT: Final = "No response from OpenClaw."

#: how the turn ended: the turn's own terminals, or `refused` when the host raised
#: before (or instead of) running it, `interrupted` when the run ended without settling
Ending = Literal["ok", "failed", "aborted", "timeout", "refused", "interrupted"]
_ENDINGS: Final = ("ok", "failed", "aborted", "timeout", "refused", "interrupted")


@dataclass(frozen=True, slots=True)
class TurnAnswer:
    """A finished run as the HTTP API answers it.

    `ok`: the turn ended `ok` (its `text` is the reply). A turn that did not may still
    have said something (`text`, answered as a cut-off reply). `error_type` is the
    failure's stable code (`provider_unreachable`, `timeout`, `session_busy`, ...);
    `tools_ran` counts the host tool calls the turn made (a retry could repeat them).
    """

    ok: bool
    text: str
    ending: Ending
    error: str | None = None
    error_type: str | None = None
    input_tokens: int = 0
    output_tokens: int = 0
    tools_ran: int = 0

    def to_json(self) -> dict[str, Any]:
        return {"ok": self.ok, "text": self.text, "ending": self.ending, "error": self.error,
                "errorType": self.error_type, "inputTokens": self.input_tokens,
                "outputTokens": self.output_tokens, "toolsRan": self.tools_ran}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> TurnAnswer:
        """The answer `to_json` wrote; ValueError naming the field that is not."""
        ending = data.get("ending")
        if ending not in _ENDINGS:
            raise ValueError(f"answer.ending {ending!r} is not one of {', '.join(_ENDINGS)}")
        return cls(ok=_typed(data, "ok", bool), text=_typed(data, "text", str),
                   ending=ending, error=_optional(data, "error"),
                   error_type=_optional(data, "errorType"),
                   input_tokens=_typed(data, "inputTokens", int),
                   output_tokens=_typed(data, "outputTokens", int),
                   tools_ran=_typed(data, "toolsRan", int))


def _typed(data: Mapping[str, Any], name: str, kind: type[Any]) -> Any:
    value = data.get(name)
    if not isinstance(value, kind):
        raise ValueError(f"answer.{name} must be a {kind.__name__}, got {value!r}")
    return value


def _optional(data: Mapping[str, Any], name: str) -> str | None:
    value = data.get(name)
    if value is not None and not isinstance(value, str):
        raise ValueError(f"answer.{name} must be a string or null, got {value!r}")
    return value


def _tokens(usage: Mapping[str, Any] | None) -> tuple[int, int]:
    """(input, output) tokens from a turn's usage, whichever spelling the runtime used."""
    def pick(*names: str) -> int:
        for name in names:
            value = (usage or {}).get(name)
            if isinstance(value, int):
                return value
        return 0

    return (pick("input", "inputTokens", "input_tokens", "prompt_tokens"),
            pick("output", "outputTokens", "output_tokens", "completion_tokens"))


def answer_of(ended: RunResult) -> TurnAnswer:
    """The answer to a run that ended."""
    result = ended.result
    if result is None:
        exception = ended.exception
        code = getattr(exception, "code", None)
        if not isinstance(exception, Exception):
            # interrupted (the gateway shutting down) or ended without settling
            return TurnAnswer(False, "", "interrupted", error=ended.error or "the run ended",
                              error_type="run_interrupted")
        return TurnAnswer(False, "", "refused", error=ended.error or "the turn failed",
                          error_type=code if isinstance(code, str) else "turn_failed")
    given, taken = _tokens(result.usage)
    tools_ran = len(result.tool_calls)
    if result.terminal == "failed":
        return TurnAnswer(False, "", "failed", error=result.error or "the turn failed",
                          error_type=result.error_type, input_tokens=given,
                          output_tokens=taken, tools_ran=tools_ran)
    texts = [str(p.get("text")) for p in result.payloads if p.get("text")]
    text = "\n\n".join(texts) or result.text
    if result.terminal != "ok":
        ending: Ending = "timeout" if result.terminal == "timeout" else "aborted"
        return TurnAnswer(False, text, ending,
                          error=result.error or f"the turn ended: {result.terminal}",
                          error_type=result.error_type or result.terminal,
                          input_tokens=given, output_tokens=taken, tools_ran=tools_ran)
    return TurnAnswer(True, text or NO_RESPONSE_TEXT, "ok", input_tokens=given,
                      output_tokens=taken, tools_ran=tools_ran)
