"""Adopting a native session into a host session: the decision, then one all-or-nothing
write (docs/portable-sessions.md).

A harness reads the native session (`NativeAdoption`: messages with stable keys, and
`bind` / `unbind`). Here the host decides whether the host session may take it
(`plan_adoption`, pure) and then writes it (`adopt_into`): the session row when it is
new, the binding (`bind`), the transcript entries in one atomic append. A failure at any
step takes back the steps before it, so nothing is half-imported.

Every entry is stored under the idempotency key `adopt:<harness>:<native id>:<entry
key>` with its provenance in `metadata["adoptedFrom"]`, so adopting the same native
session again adds only what is new, and a copy of entries into another session (a
fork) can say where each came from the same way (`copied_entry`).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Final, Literal, Protocol, cast

from clawharness._ids import new_id
from clawharness._json import JsonValue
from clawharness.errors import NativeSessionBoundError, NativeSessionError
from clawharness.harness import (
    AdoptRequest,
    HandoffRequest,
    Message,
    NativeAdoption,
    NativeHandoff,
    PortableSessions,
    message_text,
)
from clawharness.records import SessionMeta
from clawharness.sessions.transcript import entry_to_message
from clawharness.sessions.writers import SessionWriters
from clawharness.store import (
    NewEntry,
    SessionLease,
    SessionRecord,
    SessionStore,
    TranscriptEntry,
    TranscriptStore,
)

__all__ = [
    "ADOPTED_FROM",
    "HANDOFFS",
    "AdoptionPlan",
    "AdoptionResult",
    "HandoffNote",
    "adopt_into",
    "adopt_native",
    "adopted_entry_key",
    "copied_entry",
    "handed_off",
    "handoff_native",
    "plan_adoption",
]

log = logging.getLogger("clawharness.sessions")

#: the metadata key of an adopted entry's provenance
ADOPTED_FROM: Final = "adoptedFrom"
#: the session meta key listing the native sessions it was handed off to
HANDOFFS: Final = "handoffs"
#: the stored (camelCase) names of a native session's id and a handoff's transcript seq
_NATIVE_ID: Final = "nativeSessionId"
_AT_SEQ: Final = "atSeq"


@dataclass(frozen=True, slots=True)
class HandoffNote:
    """One handoff of a host session, as its meta keeps it (`meta["handoffs"]`): the
    native session made, how many of its messages were the host's (`carried`), and the
    transcript's last seq then (`at_seq`)."""

    harness: str
    native_session_id: str
    carried: int
    at_seq: int
    at: float = 0.0

    def to_stored(self) -> dict[str, JsonValue]:
        return {"harness": self.harness, _NATIVE_ID: self.native_session_id,
                "carried": self.carried, _AT_SEQ: self.at_seq, "at": self.at}

    @classmethod
    def from_stored(cls, stored: object) -> HandoffNote | None:
        """The note a stored value holds, or None for one of another shape."""
        if not isinstance(stored, dict):
            return None
        harness, native = stored.get("harness"), stored.get(_NATIVE_ID)
        carried, at_seq, at = stored.get("carried"), stored.get(_AT_SEQ), stored.get("at")
        if not (isinstance(harness, str) and isinstance(native, str)
                and isinstance(carried, int) and isinstance(at_seq, int)):
            return None
        return cls(harness, native, carried, at_seq,
                   float(at) if isinstance(at, int | float) else 0.0)


def _provenance_of(adoption: NativeAdoption, **more: JsonValue) -> dict[str, JsonValue]:
    """Where adopted entries (and the session that took them) came from, as stored."""
    return {"harness": adoption.harness_id, _NATIVE_ID: adoption.native_session_id,
            "source": adoption.source, **more}


class AdoptionStore(SessionStore, TranscriptStore, Protocol):
    """What an adoption writes: the session row and its transcript."""


@dataclass(frozen=True, slots=True)
class AdoptionPlan:
    """What an adoption will do to the host session: `create` it, take an `empty` one,
    `extend` one that adopted this native session before, or take back (`return`) the
    native session it was handed off to; `entries` are the ones the host transcript does
    not hold yet (none: nothing to do)."""

    kind: Literal["create", "empty", "extend", "return"]
    entries: tuple[NewEntry, ...]
    already: int


@dataclass(frozen=True, slots=True)
class AdoptionResult:
    """A finished adoption: the host session, the native session bound to it, how many
    messages were added (`appended`) and how many it held already (`already`)."""

    session_key: str
    session_id: str
    harness_id: str
    native_session_id: str
    source: str
    appended: int
    already: int
    created: bool
    model_ref: str | None
    left_out: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {"sessionKey": self.session_key, "sessionId": self.session_id,
                "runtime": self.harness_id, _NATIVE_ID: self.native_session_id,
                "source": self.source, "appended": self.appended, "already": self.already,
                "created": self.created, "model": self.model_ref,
                "leftOut": list(self.left_out)}


def adopted_entry_key(harness_id: str, native_session_id: str, entry_key: str) -> str:
    """The idempotency key of an adopted native message."""
    return f"adopt:{harness_id}:{native_session_id}:{entry_key}"


def _provenance(entry: TranscriptEntry) -> dict[str, Any] | None:
    value = entry.metadata.get(ADOPTED_FROM) if isinstance(entry.metadata, dict) else None
    return value if isinstance(value, dict) else None


def handed_off(record: SessionRecord | None, harness_id: str,
               native_session_id: str) -> HandoffNote | None:
    """The note of this host session's handoff to that native session, if it made it."""
    notes = record.meta.extra.get(HANDOFFS) if record is not None else None
    for stored in notes if isinstance(notes, list) else ():
        note = HandoffNote.from_stored(stored)
        if note is not None and (note.harness, note.native_session_id) == (
                harness_id, native_session_id):
            return note
    return None


def plan_adoption(session_key: str, record: SessionRecord | None, stored: Sequence[TranscriptEntry],
                  adoption: NativeAdoption, *,
                  scrub: Callable[[Message], Message] | None = None) -> AdoptionPlan:
    """May `session_key` take `adoption`, and what is new? Pure.

    Refused (`NativeSessionBoundError`, nothing written): a native session another host
    session already adopted; a host session holding a conversation of its own, or one
    adopted from another native session; and a host session that went on with turns of
    its own since it adopted this native session while the native session went on too
    (the two diverged: adopt into a new key).

    A native session this host session was handed off to comes back (`return`): its
    first `carried` messages are the host's own, handed off, so only what came after is
    new, and the session moves to the native runtime."""
    native = f"{adoption.harness_id} session {adoption.native_session_id}"
    others = [k for k in adoption.bound_keys if k != session_key]
    if others:
        raise NativeSessionBoundError(
            f"{native} is already adopted by host session {others[0]}; nothing was imported",
            hint=f"go on there (clawharness agent --session {others[0]}), or delete that "
                 "session first to adopt it anew")
    entries = [_new_entry(adoption, e.key, e.message, scrub) for e in adoption.entries]
    if record is None:
        return AdoptionPlan("create", tuple(entries), 0)
    handoff = handed_off(record, adoption.harness_id, adoption.native_session_id)
    if handoff is not None:
        entries = entries[max(0, handoff.carried):]
        own_since = [e for e in stored if e.seq > handoff.at_seq and _provenance(e) is None]
    elif record.agent_harness_id not in (None, adoption.harness_id) and stored:
        raise NativeSessionBoundError(
            f"host session {session_key} runs on {record.agent_harness_id}, not "
            f"{adoption.harness_id}; nothing was imported",
            hint="adopt into a new session key with --as NEWKEY")
    if not stored and handoff is None:
        return AdoptionPlan("empty", tuple(entries), 0)
    mine = [e for e in stored if (p := _provenance(e)) is not None
            and p.get("harness") == adoption.harness_id
            and p.get(_NATIVE_ID) == adoption.native_session_id]
    if not mine and handoff is None:
        raise NativeSessionBoundError(
            f"host session {session_key} already holds a conversation of its own "
            f"({len(stored)} transcript entries, none adopted from {native}); nothing was "
            "imported", hint="adopt into a new session key with --as NEWKEY")
    held = {e.idempotency_key for e in stored}
    new = tuple(e for e in entries if e.idempotency_key not in held)
    already = len(adoption.entries) - len(new)
    kind: Literal["extend", "return"] = "extend" if mine else "return"
    if not new:
        return AdoptionPlan(kind, (), already)
    if handoff is not None:
        own = own_since if not mine else [e for e in own_since if e.seq > mine[-1].seq]
    else:
        own = [e for e in stored if _provenance(e) is None and e.seq > mine[0].seq]
    if own:
        since_what = f"it adopted {native}" if handoff is None or mine else \
            f"it was handed off to {native}"
        raise NativeSessionBoundError(
            f"host session {session_key} went on with {len(own)} transcript entries of its "
            f"own since {since_what}, and the native session has {len(new)} new "
            "messages too: the two have diverged; nothing was imported",
            hint="adopt into a new session key with --as NEWKEY")
    return AdoptionPlan(kind, new, already)


def _new_entry(adoption: NativeAdoption, key: str, message: Message,
               scrub: Callable[[Message], Message] | None) -> NewEntry:
    clean = scrub(message) if scrub is not None else message
    return NewEntry(
        role=str(clean.get("role", "unknown")), content=dict(clean),
        metadata={ADOPTED_FROM: _provenance_of(adoption, entry=key)},
        idempotency_key=adopted_entry_key(adoption.harness_id, adoption.native_session_id,
                                          key),
        text=message_text(clean) or None)


def copied_entry(entry: TranscriptEntry, *, key_prefix: str,
                 provenance: dict[str, Any]) -> NewEntry:
    """`entry` for another session's transcript: the same message under
    `<key_prefix>:<seq>`, its provenance (`provenance`, e.g. the session it was copied
    from) beside its own metadata, searchable by its text."""
    return NewEntry(role=entry.role, content=entry.content,
                    metadata={**entry.metadata, "copiedFrom": provenance},
                    idempotency_key=f"{key_prefix}:{entry.seq}", text=entry.text)


async def adopt_into(store: AdoptionStore, session_key: str, agent_id: str,
                     record: SessionRecord | None, adoption: NativeAdoption,
                     plan: AdoptionPlan, *, model_ref: str | None,
                     fence: SessionLease | None = None) -> AdoptionResult:
    """Carry out `plan` (from `plan_adoption`), all or nothing: the row (made, or pinned
    when it was empty), then the binding, then the entries in one append; a failure
    takes back what was done before it and is raised as it was."""

    def result(session_id: str, appended: int, created: bool, model: str | None
               ) -> AdoptionResult:
        return AdoptionResult(session_key, session_id, adoption.harness_id,
                              adoption.native_session_id, adoption.source, appended,
                              plan.already, created, model, adoption.left_out)

    if not plan.entries:
        assert record is not None
        return result(record.session_id, 0, False, record.model_ref)
    adopted: dict[str, JsonValue] = {ADOPTED_FROM: _provenance_of(adoption, at=time.time())}
    undo: list[Callable[[], Any]] = []
    created = False
    try:
        if record is None:
            now = time.time()
            record = await store.create_session(SessionRecord(
                key=session_key, session_id=new_id(), agent_id=agent_id, model_ref=model_ref,
                agent_harness_id=adoption.harness_id, created_at=now, updated_at=now,
                meta=SessionMeta.from_stored(adopted)))
            created = True
            undo.append(lambda: store.delete_session(session_key, fence=fence))
        elif plan.kind in ("empty", "return"):
            before = record
            record = await store.update_session(
                session_key, fence=fence, agent_harness_id=adoption.harness_id,
                model_ref=model_ref or record.model_ref, meta=record.meta.merged(adopted))
            undo.append(lambda: store.update_session(
                session_key, fence=fence, agent_harness_id=before.agent_harness_id,
                model_ref=before.model_ref, meta=before.meta))
        await adoption.bind(session_key, record.session_id)
        undo.append(adoption.unbind)
        outcomes = await store.append_entries(session_key, record.session_id,
                                              list(plan.entries), fence=fence)
    except BaseException:
        for step in reversed(undo):
            try:
                await step()
            except Exception as exc:  # the first failure is the one to report
                log.warning("adopting %s into %s: taking back a step failed: %s",
                            adoption.native_session_id, session_key, exc)
        raise
    appended = sum(1 for o in outcomes if o.appended)
    return result(record.session_id, appended, created, record.model_ref)


async def adopt_native(store: AdoptionStore, writers: SessionWriters, harness: PortableSessions,
                       request: AdoptRequest, *, session_key: Callable[[NativeAdoption], str],
                       model_ref: Callable[[NativeAdoption], str | None],
                       scrub: Callable[[Message], Message] | None = None) -> AdoptionResult:
    """The whole adoption: the harness reads the native session (writing nothing), then,
    holding the host session's writer lease, the plan and its all-or-nothing write.
    `session_key(adoption)` and `model_ref(adoption)` name the host session and its
    model once the native session is known."""
    adoption = await harness.adopt_native_session(request)
    key = session_key(adoption)
    model = model_ref(adoption)
    async with writers.hold(key, purpose="adopt a native session") as slot:
        record = await store.get_session(key)
        if record is not None and record.agent_id != request.agent_id:
            raise NativeSessionBoundError(
                f"host session {key} belongs to agent {record.agent_id}, not "
                f"{request.agent_id}; nothing was imported")
        stored = await store.read_entries(record.session_id) if record else []
        plan = plan_adoption(key, record, stored, adoption, scrub=scrub)
        return await adopt_into(store, key, request.agent_id, record, adoption, plan,
                                model_ref=model, fence=slot.fence)


async def handoff_native(store: AdoptionStore, writers: SessionWriters,
                         harness: PortableSessions, record: SessionRecord,
                         make_request: Callable[[tuple[Message, ...]], HandoffRequest]
                         ) -> NativeHandoff:
    """The whole handoff, holding the session's writer lease (so no turn adds to the
    transcript meanwhile): the harness makes the native session from the transcript, and
    the session's `meta["handoffs"]` records it (`carried`, `atSeq`), so adopting that
    native session back into this one adds only what was said there afterwards."""
    async with writers.hold(record.key, purpose="hand a session off") as slot:
        entries = await store.read_entries(record.session_id)
        if not entries:
            raise NativeSessionError(f"host session {record.key} has no transcript to hand off")
        history = tuple(cast(Message, entry_to_message(e)) for e in entries)
        handoff = await harness.handoff_native_session(make_request(history))
        note = HandoffNote(handoff.harness_id, handoff.native_session_id, handoff.carried,
                           entries[-1].seq, time.time())
        try:
            current = await store.get_session(record.key)
            if current is not None and current.session_id == record.session_id:
                listed = current.meta.extra.get(HANDOFFS)
                earlier = listed if isinstance(listed, list) else []
                await store.update_session(
                    record.key, fence=slot.fence,
                    meta=current.meta.merged({HANDOFFS: [*earlier, note.to_stored()]}))
        except Exception as exc:  # the native session stands; only its way back is lost
            log.warning("handing off %s: the handoff to %s could not be recorded, so "
                        "adopting it back into this session will be refused: %s",
                        record.key, handoff.native_session_id, exc)
        return handoff
