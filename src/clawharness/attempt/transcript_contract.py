"""The transcript contract: a finished attempt's reply is in the transcript.

The host stores the turn's prompt and then the result's `messages_snapshot` (or, when
the harness mirrored, what it passed to `params.mirror`). The reply fields
(`assistant_texts`) are delivered but never stored by themselves, so a reply text that no
stored assistant message holds would vanish from the session's history: such a result is
refused, naming the field and the fix. Pure; no I/O.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from clawharness.attempt.validate import AttemptResultRejectedError
from clawharness.harness.messages import message_text
from clawharness.harness.types import AttemptResult

__all__ = ["check_transcript_contract", "reply_texts_missing_from"]

_FIX = ("put an assistant message holding the reply in messages_snapshot (assistant_message"
        "(text) from clawharness.plugin_sdk.agent_harness, or AttemptResult.reply(...)), or "
        "mirror it through params.mirror and return transcript_mirrored=True; see "
        "docs/writing-a-harness.md (the transcript contract)")


def reply_texts_missing_from(assistant_texts: Sequence[str],
                             stored: Sequence[Mapping[str, object]]) -> list[str]:
    """The non-blank reply texts that no stored assistant message contains."""
    visible = [message_text(m) for m in stored
               if isinstance(m, Mapping) and m.get("role") == "assistant"]
    missing: list[str] = []
    for text in assistant_texts:
        wanted = text.strip() if isinstance(text, str) else ""
        if wanted and not any(wanted in shown for shown in visible):
            missing.append(wanted)
    return missing


def check_transcript_contract(result: AttemptResult,
                              mirrored: Sequence[Mapping[str, object]] | None = None) -> None:
    """Refuse a finished attempt whose reply the transcript would not hold.

    `mirrored`: what the harness passed to `params.mirror`, when the caller saw it; a
    mirrored result without it is the harness's own responsibility. Failed, aborted and
    timed-out attempts are not refused (their error must reach the user unchanged).
    """
    if result.terminal.kind != "ok":
        return
    if result.transcript_mirrored:
        if mirrored is None:
            return
        stored, where = mirrored, "the messages mirrored through params.mirror"
    else:
        stored, where = result.messages_snapshot, "messages_snapshot"
    missing = reply_texts_missing_from(result.assistant_texts, stored)
    if missing:
        sample = missing[0] if len(missing[0]) <= 80 else missing[0][:77] + "..."
        raise AttemptResultRejectedError(
            f"the attempt's reply {sample!r} (assistant_texts) is in no assistant message "
            f"of {where}, so the transcript would not hold it; {_FIX}",
            field="messagesSnapshot")
