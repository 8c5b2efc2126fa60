"""The transcript mirror: messages of the wire shape into store entries, idempotently.

Every mirrored message carries an idempotency key derived from the run and its
position (or supplied by a native harness), so a retried or re-imported append never
stores the same message twice. Only the entries actually appended count as new.

The mirror writes behind the turn: a call queues its messages and returns, at most one
append is in flight, and whatever was queued meanwhile goes into the next one, so the
store sees every message once and in order while the turn goes on (a turn no longer
waits for a commit per message). The write starts on the event loop's next pass, or at
the barrier if that comes first, eagerly: a write the store makes at once (inline on the
loop) ends right there, and only one that has to wait goes on in a task. `flush()` is
the barrier: it returns once everything queued is stored, or raises the failure that
stopped it. The host flushes when the attempt ends, before it answers; a harness
flushes (`AttemptParams.mirror_barrier`) before a step with effects outside the host,
such as a tool that may change state.
"""

from __future__ import annotations

import asyncio
import contextvars
import json
import time
from collections.abc import Awaitable, Callable, Coroutine, Generator, Sequence
from json.encoder import c_make_encoder, encode_basestring  # type: ignore[attr-defined]
from typing import Any, Final

from clawharness._frozen import quick_maker
from clawharness.observability.spans import store_append_span
from clawharness.observability.telemetry import current_telemetry
from clawharness.store import (
    AppendOutcome,
    NewEntry,
    SessionLease,
    SessionRecord,
    SessionStore,
    TranscriptEntry,
    TranscriptStore,
)

__all__ = ["RUN_ID_META", "HistoryCache", "SessionCreation", "TranscriptMirror", "entry_run_id", "entry_to_message",
           "message_text"]

#: the metadata key of a transcript entry naming the run that wrote it
RUN_ID_META: Final = "runId"
#: made once (`json.dumps` with options builds an encoder per call)
_ENCODER: Final = json.JSONEncoder(ensure_ascii=False)
#: `_ENCODER`'s C encoder, made once too (`JSONEncoder.encode` makes one per call, about
#: as costly as the encoding of a tool call's arguments); without the circular-reference
#: markers, so a circular value ends in RecursionError, then `_ENCODER` says why
_C_ENCODE: Final = None if c_make_encoder is None else c_make_encoder(
    None, _ENCODER.default, encode_basestring, None, ": ", ", ", False, False, True)
#: makes a `NewEntry` as the class does, in fewer instructions (`clawharness._frozen`)
_make_entry: Final = quick_maker(NewEntry)


def _json_text(value: Any) -> str:
    """`_ENCODER.encode(value)`, the same text."""
    if _C_ENCODE is None:
        return _ENCODER.encode(value)
    try:
        return "".join(_C_ENCODE(value, 0))
    except RecursionError:
        return _ENCODER.encode(value)  # raises what it raised before (ValueError: circular)


def entry_run_id(entry: TranscriptEntry) -> str | None:
    """The run that wrote `entry` (None when unknown)."""
    value = entry.metadata.get(RUN_ID_META)
    return value if isinstance(value, str) else None


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
            if kind in ("text", "output_text", "input_text"):
                text = block.get("text")
                if isinstance(text, str) and text:
                    parts.append(text)
            elif kind == "toolCall":
                args = block.get("arguments")
                parts.append(f"{block.get('name', '')} {_json_text(args)[:2000]}")
    # (most messages have one part: no join to make)
    return parts[0] if len(parts) == 1 else "\n".join(parts)


def entry_to_message(entry: TranscriptEntry) -> dict[str, Any]:
    message = entry.content if isinstance(entry.content, dict) else {"role": entry.role, "content": entry.content}
    return message


class SessionCreation:
    """A new session's row, made with the first entries its transcript mirror appends
    (one write: `SessionStore.create_session_with_entries`), or on its own when it is
    awaited before the mirror wrote anything. Awaiting it gives the stored row, or raises
    why it could not be made (ConditionalWriteConflict: the key exists)."""

    def __init__(self, store: SessionStore, record: SessionRecord) -> None:
        self._store = store
        self.record = record
        self._made: asyncio.Future[SessionRecord] | None = None

    @property
    def started(self) -> bool:
        return self._made is not None

    async def with_entries(self, entries: Sequence[NewEntry],
                           fence: SessionLease | None) -> list[AppendOutcome]:
        """Make the row and append `entries`; raises why the row was not made, or, once
        it was, why the append was refused (awaiting this then gives the row)."""
        assert self._made is None, "the session row was asked for already"
        made = self._made = asyncio.get_running_loop().create_future()
        # (`made` is done already when a turn awaiting it was cancelled meanwhile)
        try:
            stored, outcomes = await self._store.create_session_with_entries(
                self.record, entries, fence=fence)
        except Exception as exc:
            if not made.done():
                made.set_exception(exc)
                made.exception()  # the turn sees it when it awaits this
            raise
        except BaseException:
            made.cancel()
            raise
        if not made.done():
            made.set_result(stored)
        if isinstance(outcomes, Exception):
            raise outcomes
        return outcomes

    def __await__(self) -> Generator[Any, None, SessionRecord]:
        if self._made is None:
            self._made = asyncio.ensure_future(self._store.create_session(self.record))
        return self._made.__await__()


class TranscriptMirror:
    """Appends one run's messages to one physical session, in order, idempotently."""

    def __init__(self, store: TranscriptStore, session_key: str, session_id: str, run_id: str,
                 *, attempt: int = 0, after: Awaitable[Any] | None = None,
                 fence: SessionLease | None = None,
                 scrub: Callable[[dict[str, Any]], dict[str, Any]] | None = None) -> None:
        """`scrub`: what every message passes before it is stored (the host's secret
        redaction, `clawharness.redaction.outbound.redact_transcript_message`); it
        answers a new dict and leaves the message it is given as it was."""
        self._store = store
        self._scrub = scrub
        #: the session writer lease every append is made under (the store refuses the
        #: append once another writer took the session over)
        self._fence = fence
        #: a write that must succeed before this mirror writes anything (the creation of
        #: the session row, still in flight when the turn starts); its failure is ours
        self._after = after
        self._session_key = session_key
        self._session_id = session_id
        self._run_id = run_id
        self._attempt = attempt
        self._count = 0
        self.appended: list[AppendOutcome] = []
        self._queued: list[NewEntry] = []
        #: the write under way, once it had to wait (`_start`)
        self._writing: asyncio.Task[None] | None = None
        #: the write's start on the loop's next pass, until it or the barrier starts it
        self._starting: asyncio.Handle | None = None
        #: the context the write runs in, the one of the call that queued its first message
        #: (as a task made there would have copied it)
        self._context: contextvars.Context | None = None
        self._failure: BaseException | None = None

    def _default_key(self, message: dict[str, Any]) -> str:
        # the turn's own prompt has one key per run: a fallback attempt re-mirroring it
        # is an idempotent no-op, while each attempt's other messages stay distinct
        if self._count == 0 and message.get("role") == "user":
            return f"{self._run_id}:prompt"
        if self._attempt:
            return f"{self._run_id}:a{self._attempt}:{self._count}"
        return f"{self._run_id}:{self._count}"

    @property
    def session_id(self) -> str:
        return self._session_id

    @property
    def run_id(self) -> str:
        return self._run_id

    async def __call__(self, messages: Sequence[dict[str, Any]]) -> None:
        """Queue settled messages for the transcript (a settled message is not changed
        afterwards). Raises the failure of an earlier append: nothing after a gap is
        stored."""
        if self._failure is not None:
            raise self._failure
        entries = self._entries(messages)
        if entries:
            self._queued.extend(entries)
            if self._writing is None and self._starting is None:
                self._context = contextvars.copy_context()
                self._starting = asyncio.get_running_loop().call_soon(self._start)

    async def flush(self) -> None:
        """Wait until every queued message is stored; raise the failure if one was not."""
        if self._starting is not None:  # the write has not started yet: it starts here
            self._starting.cancel()
            self._start()
        elif self._after is not None and self._failure is None and self._writing is None:
            try:
                await self._after
            except BaseException as exc:
                self._failure = exc
        while self._writing is not None:
            await asyncio.shield(self._writing)
        if self._failure is not None:
            raise self._failure

    def _start(self) -> None:
        """Start the queued write now, as a task started eagerly would: its first steps
        run in this call, so a write the store makes at once (inline on the loop) ends
        here, with no task made and no loop pass waited for; a write that has to wait goes
        on in a task (`_writing`) from where it waits. Those first steps run in no task
        (from the loop's handle) or in the barrier's: the store's append path must not
        need `asyncio.current_task()` (as `asyncio.timeout` does); the SQLite and
        PostgreSQL stores' do not (host turns on both: tests/host/test_interrupt_processes.py,
        tests/integration/sessions/test_session_writer_processes.py)."""
        self._starting = None
        context = self._context
        assert context is not None
        write = self._write_queued()
        try:
            waiting = context.run(write.send, None)
        except StopIteration:
            return
        self._writing = asyncio.get_running_loop().create_task(
            _continued(write, waiting), context=context)

    async def _write_queued(self) -> None:
        try:
            after = self._after
            if isinstance(after, SessionCreation) and not after.started and self._queued:
                # a new session: its row goes in with the first batch, in one write
                batch, self._queued = self._queued, []
                started = time.perf_counter()
                with store_append_span(self._session_id, len(batch)):
                    outcomes = await after.with_entries(batch, self._fence)
                current_telemetry().store_append.record(time.perf_counter() - started)
                self.appended.extend(outcomes)
            elif after is not None:
                await after
            while self._queued and self._failure is None:
                batch, self._queued = self._queued, []
                started = time.perf_counter()
                with store_append_span(self._session_id, len(batch)):
                    if self._fence is None:
                        outcomes = await self._store.append_entries(
                            self._session_key, self._session_id, batch)
                    else:
                        outcomes = await self._store.append_entries(
                            self._session_key, self._session_id, batch, fence=self._fence)
                current_telemetry().store_append.record(time.perf_counter() - started)
                self.appended.extend(outcomes)
        except BaseException as exc:  # kept for the barrier; later messages are dropped
            self._failure = exc
            self._queued.clear()
        finally:
            self._writing = None

    def _entries(self, messages: Sequence[dict[str, Any]]) -> list[NewEntry]:
        entries: list[NewEntry] = []
        scrub, run_id = self._scrub, self._run_id
        for message in messages:
            if "__meta" in message:
                meta = message["__meta"]
                clean = {k: v for k, v in message.items() if k != "__meta"}
            else:  # (a scrub answers a new dict: no copy of our own for it)
                meta, clean = None, message if scrub is not None else dict(message)
            if isinstance(meta, dict):
                key = meta.get("idempotencyKey") or self._default_key(message)
                metadata = {RUN_ID_META: run_id, **meta}
            else:
                key, metadata = self._default_key(message), {RUN_ID_META: run_id}
            self._count += 1
            if scrub is not None:
                clean = scrub(clean)
            role = clean.get("role", "unknown")
            # (positional: a frozen dataclass's keywords cost more)
            entries.append(_make_entry(
                role if type(role) is str else str(role), clean, metadata,
                key if type(key) is str else str(key), message_text(clean) or None))
        return entries


class _Yield:
    """Awaited, hands `waiting` to the task that awaits it and answers what the task sends
    back when it resumes (`_continued`)."""

    __slots__ = ("waiting",)

    def __init__(self, waiting: Any) -> None:
        self.waiting = waiting

    def __await__(self) -> Generator[Any, Any, Any]:
        return (yield self.waiting)


async def _continued(coro: Coroutine[Any, None, None], waiting: Any) -> None:
    """Drive `coro`, whose first steps ran elsewhere and which now waits on `waiting` (the
    future it yielded), on to its end in the task running this: every resumption and
    every exception (a cancellation) the task gets goes on to `coro`, as it would had the
    task driven `coro` from its start."""
    while True:
        try:
            sent = await _Yield(waiting)
        except BaseException as exc:
            try:
                waiting = coro.throw(exc)
            except StopIteration:
                return
        else:
            try:
                waiting = coro.send(sent)
            except StopIteration:
                return


def _follows(window_fence: int | None, fence: int | None) -> bool:
    """May a turn under `fence` use a window written under `window_fence`? Yes when the
    turn holds the next lease after it, or the same one (a later attempt of the same
    turn); without a lease only the seq check applies."""
    if fence is None:
        return True
    return window_fence is not None and window_fence in (fence, fence - 1)


class HistoryCache:
    """The newest messages of recently used sessions, so a turn need not re-read and
    re-decode its whole context window from the store.

    A window is trusted only while the store's newest seq for the session still equals
    the cached one (one cheap index read per turn) and, for turns under a session writer
    lease, while the turn's fence is the one right after the fence the window was
    written under: any other writer in between (another process, a reset or rewind)
    took the lease and so moved the fence on, whatever it did to the seq.
    """

    def __init__(self, *, limit: int, max_sessions: int = 2048) -> None:
        self._limit = limit
        self._max_sessions = max_sessions
        #: session_id -> (newest seq, fence it was written under or None, messages)
        self._windows: dict[str, tuple[int, int | None, list[dict[str, Any]]]] = {}

    def get(self, session_id: str, newest_seq: int,
            fence: int | None = None) -> list[dict[str, Any]] | None:
        window = self._windows.get(session_id)
        if window is None or window[0] != newest_seq or not _follows(window[1], fence):
            return None
        # most recently used last, for eviction
        self._windows[session_id] = self._windows.pop(session_id)
        return window[2]

    def put(self, session_id: str, entries: Sequence[TranscriptEntry],
            fence: int | None = None) -> list[dict[str, Any]]:
        messages = [entry_to_message(e) for e in entries][-self._limit:]
        newest = entries[-1].seq if entries else 0
        self._store(session_id, newest, fence, messages)
        return messages

    def extend(self, session_id: str, previous_seq: int, outcomes: Sequence[AppendOutcome],
               fence: int | None = None) -> None:
        """Add what a turn appended; drop the window if anything else changed meanwhile."""
        window = self._windows.get(session_id)
        if window is None or window[0] != previous_seq or not _follows(window[1], fence):
            self._windows.pop(session_id, None)
            return
        messages = list(window[2])
        newest = previous_seq
        for outcome in outcomes:
            if not outcome.appended:
                continue
            if outcome.entry.seq <= newest:
                self._windows.pop(session_id, None)
                return
            newest = outcome.entry.seq
            messages.append(entry_to_message(outcome.entry))
        self._store(session_id, newest, fence, messages[-self._limit:])

    def invalidate(self, session_id: str) -> None:
        self._windows.pop(session_id, None)

    def _store(self, session_id: str, newest: int, fence: int | None,
               messages: list[dict[str, Any]]) -> None:
        self._windows.pop(session_id, None)
        self._windows[session_id] = (newest, fence, messages)
        while len(self._windows) > self._max_sessions:
            self._windows.pop(next(iter(self._windows)))
