"""`Idempotency-Key`: a retried request gets the first one's answer, not a second turn.

A request that carries `Idempotency-Key: <key>` is recorded in the store (plugin state,
namespace `openai-http.idempotency`) under a digest of the caller (the bearer token it
presented), the endpoint and the key, before its turn starts:

- the first request *claims* the record (an insert that only one process wins), runs
  its turn, and stores its answer when the run ends, whether or not its client is still
  connected;
- a request with the same key and the same body (its *fingerprint*) gets that answer:
  while the turn runs it waits for it (or streams it, in the process running it; another
  process streams the answer once it is stored), afterwards the stored answer is sent
  again with `idempotent-replayed: true`;
- the same key with another body is refused (422 `idempotency_key_reused`);
- a first run that failed in a way a retry cannot repeat (`failures.retry_safe`) leaves
  the record *retryable*: the next request with the key runs the turn again, on the
  first attempt's session.

The process running a turn holds the record's lease and renews it; a record whose lease
ran out while running belonged to a process that stopped, and is answered as lost
(its turn may have run partly). Records are kept `RECORD_TTL_SECONDS` after they end;
each process sweeps expired ones now and then. Because they live in the store, every
gateway process of the same store (PostgreSQL, behind one load balancer) sees them.
"""

from __future__ import annotations

import hashlib
import json
import re
import secrets
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any, Final, Literal

from clawharness.gateway.openai_http.answers import TurnAnswer
from clawharness.gateway.openai_http.errors import OpenAiHttpError
from clawharness.store import PluginStateRecord, PluginStateStore

__all__ = [
    "IDEMPOTENCY_HEADER",
    "LEASE_SECONDS",
    "NAMESPACE",
    "RECORD_TTL_SECONDS",
    "RecordState",
    "RequestIdentity",
    "RequestLedger",
    "RequestRecord",
    "idempotency_key",
    "request_identity",
]

IDEMPOTENCY_HEADER: Final = "idempotency-key"
NAMESPACE: Final = "openai-http.idempotency"
#: how long a finished request's answer is kept for its retries
RECORD_TTL_SECONDS: Final = 24 * 3600.0
#: how long a running request's claim lasts unless its process renews it
LEASE_SECONDS: Final = 60.0
#: how often the records are swept for expired ones (per process)
SWEEP_EVERY_SECONDS: Final = 600.0
_KEY: Final = re.compile(r"^[\x21-\x7e]{1,255}$")

#: `running`: a process runs the turn; `retryable`: it failed in a way a retry cannot
#: repeat, the next request runs it again; `done`: the answer is final
RecordState = Literal["running", "retryable", "done"]
_STATES: Final = ("running", "retryable", "done")


def idempotency_key(headers: Mapping[str, str]) -> str | None:
    """The request's `Idempotency-Key`, or None; OpenAiHttpError when it is malformed."""
    value = headers.get(IDEMPOTENCY_HEADER)
    if value is None:
        return None
    key = value.strip()
    if not _KEY.match(key):
        raise OpenAiHttpError(400, "the Idempotency-Key header must be 1 to 255 visible ASCII "
                              "characters (a UUID is a good key)",
                              code="invalid_idempotency_key")
    return key


@dataclass(frozen=True, slots=True)
class RequestIdentity:
    """Where a keyed request is recorded (`record_key`: a digest of caller, endpoint and
    key, so no key or token is stored) and what it asked (`fingerprint`)."""

    record_key: str
    fingerprint: str


def request_identity(key: str, *, caller: str, endpoint: str, body: Mapping[str, Any],
                     routing: Mapping[str, str | None]) -> RequestIdentity:
    """`caller`: the credential the request presented (its record is the caller's own);
    `routing`: the headers that choose where the turn runs (agent, session)."""
    scope = hashlib.sha256(f"{caller}\n{endpoint}\n{key}".encode()).hexdigest()
    asked = json.dumps({"body": body, "routing": dict(routing)}, sort_keys=True,
                       ensure_ascii=False, separators=(",", ":"))
    return RequestIdentity(scope, hashlib.sha256(asked.encode()).hexdigest())


@dataclass(frozen=True, slots=True)
class RequestRecord:
    """A keyed request as stored: its run (`run_id` on `session_key`, made at `created`,
    the `attempt`-th run of the key) and, once it ended, its `answer`."""

    fingerprint: str
    state: RecordState
    run_id: str
    session_key: str
    created: int
    attempt: int = 1
    answer: TurnAnswer | None = None
    finished_at: float | None = None
    #: the store row's generation and lease (not part of the stored value)
    generation: int = 0
    lease_expires_at: float | None = None

    def to_json(self) -> dict[str, Any]:
        return {"v": 1, "fingerprint": self.fingerprint, "state": self.state,
                "runId": self.run_id, "sessionKey": self.session_key,
                "created": self.created, "attempt": self.attempt,
                "answer": None if self.answer is None else self.answer.to_json(),
                "finishedAt": self.finished_at}

    @classmethod
    def from_row(cls, row: PluginStateRecord) -> RequestRecord:
        """The record a store row holds; ValueError naming what is wrong with it."""
        data = row.value
        if not isinstance(data, Mapping) or data.get("v") != 1:
            raise ValueError(f"idempotency record {row.key} is not a version 1 record")
        state = data.get("state")
        if state not in _STATES:
            raise ValueError(f"idempotency record {row.key}: state {state!r}")
        answer = data.get("answer")
        finished = data.get("finishedAt")
        fields = {name: data.get(wire) for name, wire in (
            ("fingerprint", "fingerprint"), ("run_id", "runId"),
            ("session_key", "sessionKey"))}
        for name, value in fields.items():
            if not isinstance(value, str):
                raise ValueError(f"idempotency record {row.key}: {name} is not a string")
        created, attempt = data.get("created"), data.get("attempt")
        if not isinstance(created, int) or not isinstance(attempt, int):
            raise ValueError(f"idempotency record {row.key}: created/attempt not integers")
        return cls(fingerprint=str(fields["fingerprint"]), state=state,
                   run_id=str(fields["run_id"]), session_key=str(fields["session_key"]),
                   created=created, attempt=attempt,
                   answer=None if answer is None else TurnAnswer.from_json(answer),
                   finished_at=float(finished) if isinstance(finished, int | float) else None,
                   generation=row.generation, lease_expires_at=row.lease_expires_at)

    def lease_lost(self, now: float) -> bool:
        """Running, but its process stopped renewing the claim."""
        return (self.state == "running" and self.lease_expires_at is not None
                and self.lease_expires_at < now)


class RequestLedger:
    """The keyed requests' records in a store (see the module docstring)."""

    def __init__(self, store: PluginStateStore, *, ttl: float = RECORD_TTL_SECONDS,
                 lease: float = LEASE_SECONDS, clock: Callable[[], float] = time.time) -> None:
        self._store = store
        self._ttl = ttl
        self.lease = lease
        self._clock = clock
        self._token = secrets.token_hex(8)
        self._swept_at: float | None = None

    def _lease_until(self) -> float:
        return self._clock() + self.lease

    async def get(self, identity: RequestIdentity) -> RequestRecord | None:
        row = await self._store.state_get(NAMESPACE, identity.record_key)
        return None if row is None else RequestRecord.from_row(row)

    async def claim(self, identity: RequestIdentity, *, run_id: str, session_key: str,
                    created: int) -> RequestRecord | None:
        """Record the request as running here; None when the key is recorded already."""
        await self._sweep_now_and_then()
        record = RequestRecord(identity.fingerprint, "running", run_id, session_key, created)
        row = await self._store.state_insert_if_absent(
            NAMESPACE, identity.record_key, record.to_json(), lease_token=self._token,
            lease_expires_at=self._lease_until())
        return None if row is None else RequestRecord.from_row(row)

    async def take_over(self, identity: RequestIdentity, record: RequestRecord, *,
                        run_id: str, created: int) -> RequestRecord | None:
        """Run a retryable request's turn again here (on its session); None when another
        request took it first."""
        again = replace(record, state="running", run_id=run_id, created=created,
                        attempt=record.attempt + 1, answer=None, finished_at=None)
        return await self._write(identity, record, again, lease=True)

    async def renew(self, identity: RequestIdentity,
                    record: RequestRecord) -> RequestRecord | None:
        """Extend the claim of a request running here; None when it was lost."""
        return await self._write(identity, record, record, lease=True)

    async def finish(self, identity: RequestIdentity, record: RequestRecord,
                     answer: TurnAnswer, *, retryable: bool) -> RequestRecord | None:
        """Store the answer (`retryable`: the next request with the key runs again)."""
        ended = replace(record, state="retryable" if retryable else "done", answer=answer,
                        finished_at=self._clock())
        return await self._write(identity, record, ended, lease=False)

    async def _write(self, identity: RequestIdentity, record: RequestRecord,
                     value: RequestRecord, *, lease: bool) -> RequestRecord | None:
        row = await self._store.state_update_if(
            NAMESPACE, identity.record_key, record.generation, value.to_json(),
            lease_token=self._token if lease else None,
            lease_expires_at=self._lease_until() if lease else None)
        return None if row is None else RequestRecord.from_row(row)

    async def _sweep_now_and_then(self) -> None:
        now = self._clock()
        if self._swept_at is not None and now - self._swept_at < SWEEP_EVERY_SECONDS:
            return
        self._swept_at = now
        await self.sweep()

    async def sweep(self) -> int:
        """Delete the records that ended more than the TTL ago (and unreadable ones);
        how many were deleted."""
        horizon = self._clock() - self._ttl
        deleted = 0
        for row in await self._store.state_list(NAMESPACE):
            try:
                record = RequestRecord.from_row(row)
            except ValueError:
                stale = True
            else:
                ended = record.finished_at
                lost_at = record.lease_expires_at if record.state == "running" else None
                stale = ((ended is not None and ended < horizon)
                         or (lost_at is not None and lost_at < horizon))
            if stale and await self._store.state_delete_if(NAMESPACE, row.key, row.generation):
                deleted += 1
        return deleted
