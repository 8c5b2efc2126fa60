"""Short result previews on `tool` result events, for fronts that show tool calls live.

A harness reports a finished tool call twice: first its outcome to
`observe_tool_terminal` (with the result), then a `tool` event `{phase: "result",
toolCallId, isError}` to `on_agent_event` (without it). `ToolResultPreviews` sits on both
paths and adds `preview` (one redacted line, at most `PREVIEW_CHARS` characters) to the
result event, so a terminal chat or a gateway client can say what a call produced,
whichever harness ran it. It is only wired in when someone listens to agent events.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any, Final

from clawharness._text import terminal_safe
from clawharness.harness.types import AgentEvent, EventSink
from clawharness.redaction import redact_tool_payload_text

__all__ = ["PREVIEW_CHARS", "ToolResultPreviews", "tool_result_preview"]

#: the longest preview, in characters (an ellipsis marks a cut)
PREVIEW_CHARS: Final = 160
# redaction sees more than is shown, so a secret cut by the window is still recognised
_REDACTION_WINDOW: Final = 1000
_SPACES = re.compile(r"\s+")


def _content_text(result: Any) -> str:
    if not isinstance(result, Mapping):
        return ""
    content = result.get("content")
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    return "\n".join(block["text"] for block in content
                     if isinstance(block, Mapping) and block.get("type") == "text"
                     and isinstance(block.get("text"), str))


def tool_result_preview(observation: Mapping[str, Any]) -> str | None:
    """One line saying what a finished call produced (its failure for a failed one)."""
    failure = observation.get("failure")
    text = ""
    if isinstance(failure, Mapping) and isinstance(failure.get("error"), str):
        text = failure["error"]
    if not text.strip():
        text = _content_text(observation.get("result"))
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    if not lines:
        return None
    # a failure's reason is often on its last line ("Command exited with code 2")
    first = lines[0]
    if observation.get("outcome") == "failure" and len(lines) > 1:
        first = f"{first} … {lines[-1]}"
    # shown on terminals (the CLI, a gateway's TUI): no escape sequence gets through
    line = _SPACES.sub(" ", terminal_safe(redact_tool_payload_text(first[:_REDACTION_WINDOW])))
    if len(line) > PREVIEW_CHARS:
        line = line[: PREVIEW_CHARS - 1].rstrip() + "…"
    return line


class ToolResultPreviews:
    """Pairs each observed tool outcome with its result event (one attempt's worth)."""

    def __init__(self, sink: EventSink) -> None:
        self._sink = sink
        self._previews: dict[str, str] = {}

    def observing(self, observe: Callable[[Mapping[str, Any]], Any]) -> Callable[[Mapping[str, Any]], Any]:
        """`observe`, noting each outcome's preview on the way through."""

        def observe_and_note(observation: Mapping[str, Any]) -> Any:
            call_id = observation.get("toolCallId")
            if isinstance(call_id, str) and call_id:
                preview = tool_result_preview(observation)
                if preview is not None:
                    self._previews[call_id] = preview
            return observe(observation)

        return observe_and_note

    def sink(self, event: AgentEvent) -> Any:
        """The front's sink, with `preview` added to tool result events."""
        data = event.data
        if event.stream == "tool" and data.get("phase") == "result":
            preview = self._previews.pop(str(data.get("toolCallId")), None)
            if preview is not None and "preview" not in data:
                event = AgentEvent(event.stream, {**data, "preview": preview})
        return self._sink(event)
