"""What one compaction did, for the CLI, the gateway, chat and agent events."""

from __future__ import annotations

from dataclasses import dataclass

from clawharness._json import JsonValue

__all__ = ["CompactionResult"]


@dataclass(frozen=True, slots=True)
class CompactionResult:
    """One compaction (`compacted=False`: nothing was summarised, and `reason` says why)."""

    session_key: str
    compacted: bool
    reason: str | None = None
    #: the summary the model wrote
    summary: str | None = None
    #: entries summarised and entries kept verbatim
    summarised_entries: int = 0
    kept_entries: int = 0
    #: the prompt's estimated tokens before and after
    tokens_before: int = 0
    tokens_after: int = 0
    #: the stored summary entry's seq (None when none was stored)
    seq: int | None = None
    duration_ms: float = 0.0

    def to_wire(self) -> dict[str, JsonValue]:
        wire: dict[str, JsonValue] = {
            "sessionKey": self.session_key, "compacted": self.compacted,
            "summarisedEntries": self.summarised_entries, "keptEntries": self.kept_entries,
            "tokensBefore": self.tokens_before, "tokensAfter": self.tokens_after,
            "durationMs": round(self.duration_ms, 1),
        }
        if self.reason is not None:
            wire["reason"] = self.reason
        if self.summary is not None:
            wire["summary"] = self.summary
        if self.seq is not None:
            wire["seq"] = self.seq
        return wire
