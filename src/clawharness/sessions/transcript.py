"""The transcript mirror: messages of the wire shape into store entries, idempotently.

Every mirrored message carries an idempotency key derived from the run and its
position (or supplied by a native harness), so a retried or re-imported append never
stores the same message twice. Only the entries actually appended count as new.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from clawharness.store.base import AppendOutcome, NewEntry, Store, TranscriptEntry

__all__ = ["TranscriptMirror", "entry_to_message", "message_text"]


def message_text(message: dict[str, Any]) -> str:
    """The searchable text of a message: its text blocks, tool names and tool output."""
    content = message.get("content")
    if isinstance(content, str):
        return content
    parts: list[str] = []
    if isinstance(content, list):
        for block in content:
            if not isinstance(block, dict):
                continue
            kind = block.get("type")
            if kind in ("text", "output_text", "input_text") and isinstance(block.get("text"), str):
                parts.append(block["text"])
            elif kind == "toolCall":
                args = block.get("arguments")
                parts.append(f"{block.get('name', '')} {json.dumps(args, ensure_ascii=False)[:2000]}")
    return "\n".join(p for p in parts if p)


def entry_to_message(entry: TranscriptEntry) -> dict[str, Any]:
    message = entry.content if isinstance(entry.content, dict) else {"role": entry.role, "content": entry.content}
    return message


class TranscriptMirror:
    """Appends one run's messages to one physical session, in order, idempotently."""

    def __init__(self, store: Store, session_key: str, session_id: str, run_id: str) -> None:
        self._store = store
        self._session_key = session_key
        self._session_id = session_id
        self._run_id = run_id
        self._count = 0
        self.appended: list[AppendOutcome] = []

    @property
    def session_id(self) -> str:
        return self._session_id

    async def __call__(self, messages: Sequence[dict[str, Any]]) -> list[AppendOutcome]:
        entries: list[NewEntry] = []
        for message in messages:
            meta = message.get("__meta") if isinstance(message.get("__meta"), dict) else None
            key = (meta or {}).get("idempotencyKey") or f"{self._run_id}:{self._count}"
            self._count += 1
            clean = {k: v for k, v in message.items() if k != "__meta"}
            entries.append(NewEntry(
                role=str(clean.get("role", "unknown")),
                content=clean,
                metadata={"runId": self._run_id, **(meta or {})},
                idempotency_key=str(key),
                text=message_text(clean) or None,
            ))
        if not entries:
            return []
        outcomes = await self._store.append_entries(self._session_key, self._session_id, entries)
        self.appended.extend(outcomes)
        return outcomes
