"""Forking a session: a new session whose transcript is a prefix of another's
(docs/portable-sessions.md, "Fork").

The decision is pure (`parse_fork_point`, `fork_prefix`, `fork_entries`); the write
(`write_fork`) is all or nothing: the new row, then every copied entry in one append, the
row taken back when the append fails. Each copied entry keeps its message and metadata,
gains `metadata.copiedFrom = {sessionKey, sessionId, seq}` and the idempotency key
`fork:<source session id>:<seq>`, and is indexed for search under the new key like any
other entry. No native binding is copied: the fork's first native turn starts a native
session of its own, which the host transcript bootstraps (docs/native-bindings.md).
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final, Literal, Protocol

from clawharness._ids import new_id
from clawharness._json import JsonValue
from clawharness.errors import SessionForkError
from clawharness.records import ForkOrigin, SessionMeta
from clawharness.sessions.portable import copied_entry
from clawharness.store import (
    NewEntry,
    SessionRecord,
    SessionStore,
    TranscriptEntry,
    TranscriptStore,
)

__all__ = [
    "FORKED_FROM",
    "ForkPoint",
    "ForkResult",
    "ForkStore",
    "fork_entries",
    "fork_prefix",
    "parse_fork_point",
    "write_fork",
]

log = logging.getLogger("clawharness.sessions")

#: the session meta key of a fork's origin
FORKED_FROM: Final = "forkedFrom"
#: the transcript's names of a tool call and its result (the original's shape)
_TOOL_CALL: Final = "toolCall"
_TOOL_CALL_ID: Final = "toolCallId"
_TOOL_RESULT: Final = "toolResult"


_POINT = re.compile(r"^(?:(turn|entry|seq):|(turn)@)?\s*(\d+)$", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class ForkPoint:
    """Where a fork cuts the source transcript: after turn `value` (1 = the first user
    message and everything up to the next one), after the turn whose user message is
    entry `value` (`turn-at`), after the entry whose seq is `value`, or at the end."""

    kind: Literal["turn", "turn-at", "entry", "end"]
    value: int = 0

    def describe(self) -> str:
        return {"turn": f"turn {self.value}", "entry": f"entry {self.value}",
                "turn-at": f"the turn of entry {self.value}", "end": "the end"}[self.kind]


def parse_fork_point(text: str | None) -> ForkPoint:
    """`--at`: `N` or `turn:N` (through turn N), `entry:SEQ` (through that entry),
    `turn@SEQ` (through the turn whose user message is entry SEQ: what the Control UI's
    "Fork here" sends), or nothing (the whole transcript)."""
    if text is None or not text.strip():
        return ForkPoint("end")
    found = _POINT.match(text.strip())
    if found is None:
        raise SessionForkError(
            f"fork point {text!r} is not a turn or an entry",
            hint="use --at N or --at turn:N (through the Nth turn), --at entry:SEQ "
                 "(through the entry with that seq; `clawharness sessions show` lists them)")
    number = int(found.group(3))
    if number < 1:
        raise SessionForkError(f"fork point {text!r}: turns and entries count from 1")
    if found.group(2):
        return ForkPoint("turn-at", number)
    kind = (found.group(1) or "turn").lower()
    return ForkPoint("turn" if kind == "turn" else "entry", number)


def _starts_turn(entry: TranscriptEntry) -> bool:
    return entry.role == "user"


def _tool_call_ids(entry: TranscriptEntry) -> list[str]:
    content = entry.content if isinstance(entry.content, Mapping) else {}
    blocks = content.get("content") if entry.role == "assistant" else None
    return [str(b["id"]) for b in blocks or () if isinstance(b, Mapping)
            and b.get("type") == _TOOL_CALL and b.get("id")]


def _result_id(entry: TranscriptEntry) -> str | None:
    content = entry.content if isinstance(entry.content, Mapping) else {}
    value = content.get(_TOOL_CALL_ID) if entry.role == _TOOL_RESULT else None
    return str(value) if value else None


def fork_prefix(entries: Sequence[TranscriptEntry], point: ForkPoint,
                *, source: str = "the session") -> list[TranscriptEntry]:
    """The entries a fork at `point` copies (oldest first). Pure.

    Refused (`SessionForkError`): an empty transcript, a turn or entry it does not have,
    and an entry cut that leaves a tool call without the result the transcript holds for
    it (a runtime given the call and not its result would refuse the history)."""
    if not entries:
        raise SessionForkError(f"{source} has no transcript to fork",
                               hint="run a turn in it first, or start a new session")
    if point.kind == "end":
        return list(entries)
    if point.kind == "turn":
        starts = [i for i, e in enumerate(entries) if _starts_turn(e)]
        if point.value > len(starts):
            raise SessionForkError(
                f"{source} has {len(starts)} turn(s); there is no turn {point.value} to "
                "fork at", hint=f"use --at 1..{len(starts)}" if starts else None)
        end = starts[point.value] if point.value < len(starts) else len(entries)
        return list(entries[:end])
    cut = next((i for i, e in enumerate(entries) if e.seq == point.value), None)
    if point.kind == "turn-at":
        if cut is None or not _starts_turn(entries[cut]):
            raise SessionForkError(f"entry {point.value} of {source} is not the start of "
                                   "a turn (a user message)")
        end = next((i for i in range(cut + 1, len(entries)) if _starts_turn(entries[i])),
                   len(entries))
        return list(entries[:end])
    if cut is None:
        raise SessionForkError(
            f"{source} has no entry {point.value} (its entries are "
            f"{entries[0].seq}..{entries[-1].seq})")
    prefix = list(entries[:cut + 1])
    answered = {r for e in prefix if (r := _result_id(e)) is not None}
    later = {r: e.seq for e in entries[cut + 1:] if (r := _result_id(e)) is not None}
    for entry in prefix:
        for call in _tool_call_ids(entry):
            if call not in answered and call in later:
                raise SessionForkError(
                    f"entry {point.value} cuts the tool call {call!r} of entry {entry.seq} "
                    f"from its result (entry {later[call]})",
                    hint=f"fork at entry {later[call]} or later, or before entry {entry.seq}")
    return prefix


def fork_entries(source: SessionRecord, prefix: Sequence[TranscriptEntry]) -> list[NewEntry]:
    """The copies a fork appends: each message with its provenance, keyed
    `fork:<source session id>:<seq>`. Pure."""
    return [copied_entry(e, key_prefix=f"fork:{source.session_id}",
                         provenance=ForkOrigin(source.key, source.session_id,
                                               e.seq).to_provenance())
            for e in prefix]


@dataclass(frozen=True, slots=True)
class ForkResult:
    """A made fork: the new session, where it came from and what it runs on next."""

    session_key: str
    session_id: str
    source_key: str
    source_session_id: str
    through_seq: int
    copied: int
    model_ref: str | None
    runtime: str | None

    def to_json(self) -> dict[str, Any]:
        origin = ForkOrigin(self.source_key, self.source_session_id, self.through_seq)
        return {**ForkOrigin(self.session_key, self.session_id, 0).session_ref(),
                "from": origin.to_stored(),
                "copied": self.copied, "model": self.model_ref, "runtime": self.runtime}


class ForkStore(SessionStore, TranscriptStore, Protocol):
    """What a fork writes: the new session row and its transcript."""


async def write_fork(store: ForkStore, source: SessionRecord, new_key: str,
                     prefix: Sequence[TranscriptEntry], *, model_ref: str | None,
                     runtime: str | None, extra_meta: Mapping[str, JsonValue] | None = None,
                     agent_id: str | None = None) -> ForkResult:
    """Make session `new_key` holding `prefix` (from `fork_prefix`), all or nothing.

    The row is unpinned (its first turn selects a harness under the normal rules), with
    `runtime` as its runtime override when one was chosen; `ConditionalWriteConflict`
    when `new_key` exists (the caller checked; a racing writer loses nothing)."""
    now = time.time()
    through = prefix[-1].seq if prefix else 0
    meta = SessionMeta(agent_harness_runtime_override=runtime).merged({
        FORKED_FROM: ForkOrigin(source.key, source.session_id, through, now).to_stored(),
        **(extra_meta or {})})
    record = await store.create_session(SessionRecord(
        key=new_key, session_id=new_id(), agent_id=agent_id or source.agent_id,
        model_ref=model_ref, agent_harness_id=None, created_at=now, updated_at=now,
        meta=meta))
    try:
        outcomes = await store.append_entries(new_key, record.session_id,
                                              fork_entries(source, prefix))
    except BaseException:
        try:
            await store.delete_session(new_key)
        except Exception as exc:  # the append's failure is the one to report
            log.warning("forking %s into %s: taking back the new session failed: %s",
                        source.key, new_key, exc)
        raise
    return ForkResult(new_key, record.session_id, source.key, source.session_id, through,
                      sum(1 for o in outcomes if o.appended), model_ref, runtime)
