"""Session generations: one binding row per session key, owned by one physical session.

A binding row is keyed by the stable session key; its `sessionId` names the physical
session (generation) that owns it. A new physical session under the same key (a reset,
or compaction rotating the id) must not silently inherit or clear its predecessor's
binding. The rules (digest §6 "Generations"):

- `read` returns the binding only while the row is active and owned by the reader's id.
- `prepare_session_generation_reclaim`: no row, or a row of this generation, resolves at
  once; a row of another generation must be verified against the host first.
- `adopt_session_generation` (after compaction rotated the id): absent | current |
  conflict | adopted.
- `reclaim` turns a verified stale row into a cleared row of the new generation; the row
  must still hold the expected predecessor, and `never_reclaim` bindings stay.
- `retire` writes a durable retired fence for this generation.

Host authority: `capture_native_session_generation_authority` reads the host session row
once and keeps the generation and its predecessor; `verify()` rereads them after every
wait. A missing host row means an ephemeral session (allowed); a failed read never
authorises anything.
"""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Generic, Literal, TypeVar

from clawharness.sessions.bindings.authority import (
    HostGenerationAuthority,
    SessionIdentity,
    capture_native_session_generation_authority,
)
from clawharness.sessions.bindings.authority import (
    superseded_error as _superseded,
)
from clawharness.sessions.bindings.errors import InvalidRecordError
from clawharness.sessions.bindings.lifecycle import NativeSessionBindingLifecycle
from clawharness.sessions.bindings.namespace import Lease
from clawharness.store import Store

__all__ = [
    "AdoptionResult",
    "GenerationRecord",
    "GenerationRecordCodec",
    "HostGenerationAuthority",
    "ReclaimPlan",
    "ResolvedNativeSessionBinding",
    "RetirementResult",
    "SessionGenerationBindings",
    "SessionIdentity",
    "capture_native_session_generation_authority",
    "reclaim_native_session_generation",
    "resolve_native_session_binding",
    "session_binding_key",
]

B = TypeVar("B")
R = TypeVar("R")

AdoptionResult = Literal["absent", "current", "conflict", "adopted"]
RetirementResult = Literal["applied", "absent", "conflict"]


def session_binding_key(identity: SessionIdentity) -> str:
    """The plugin-state key of an identity's binding row (bounded, stable per key)."""
    agent = identity.agent_id.strip()
    if not agent:
        raise ValueError("a native session binding needs an agent id")
    if not identity.session_id.strip():
        raise ValueError("a native session binding needs a session id")
    key = (identity.session_key or "").strip()
    if key:
        digest = base64.urlsafe_b64encode(hashlib.sha256(key.encode()).digest()).rstrip(b"=")
        return f"session-key:{agent}:{digest.decode()}"
    return f"session:{agent}:{identity.session_id.strip()}"


@dataclass(frozen=True, slots=True)
class GenerationRecord(Generic[B]):
    """A stored row: active with a binding, or cleared (optionally a retired fence)."""

    state: Literal["active", "cleared"]
    binding: B | None = None
    session_id: str | None = None
    retired: bool = False

    def owned_by(self, identity: SessionIdentity) -> bool:
        """True when the row has no generation yet or belongs to `identity`'s."""
        return self.session_id is None or self.session_id == identity.session_id

    @property
    def retired_fence(self) -> bool:
        """True for a durable retirement fence."""
        return self.state == "cleared" and self.retired


class GenerationRecordCodec(Generic[B]):
    """`{"version":1,"state":"active","binding":{...},"sessionId":...}` and back."""

    version = 1

    def __init__(self, to_json: Callable[[B], dict[str, Any]],
                 from_json: Callable[[dict[str, Any]], B]) -> None:
        self._to_json = to_json
        self._from_json = from_json

    @staticmethod
    def for_dicts() -> GenerationRecordCodec[dict[str, Any]]:
        """A codec whose bindings are plain JSON objects."""
        return GenerationRecordCodec(dict, dict)

    def encode(self, record: GenerationRecord[B]) -> dict[str, Any]:
        """The stored JSON object."""
        out: dict[str, Any] = {"version": self.version, "state": record.state}
        if record.state == "active":
            if record.binding is None:
                raise ValueError("an active binding row needs a binding")
            out["binding"] = self._to_json(record.binding)
        if record.session_id:
            out["sessionId"] = record.session_id
        if record.retired:
            out["retired"] = True
        return out

    def decode(self, raw: Any) -> GenerationRecord[B]:
        """The record in `raw`; InvalidRecordError for anything else."""
        from clawharness.sessions.bindings.namespace import DictRecordCodec

        body = DictRecordCodec(version=self.version).decode(raw)
        state = body.get("state")
        session_id = body.get("sessionId")
        session_id = session_id.strip() or None if isinstance(session_id, str) else None
        if state == "active":
            binding = body.get("binding")
            if not isinstance(binding, dict):
                raise InvalidRecordError("an active binding row has no binding object")
            try:
                decoded = self._from_json(binding)
            except (ValueError, TypeError) as exc:
                raise InvalidRecordError(f"invalid binding: {exc}") from exc
            return GenerationRecord("active", decoded, session_id)
        if state == "cleared":
            return GenerationRecord("cleared", None, session_id, body.get("retired") is True)
        raise InvalidRecordError(f"unknown binding row state {state!r}")


@dataclass(frozen=True, slots=True)
class ReclaimPlan:
    """`resolved` with a final `result`, or `verify` against `expected_previous_session_id`."""

    kind: Literal["resolved", "verify"]
    result: bool = False
    expected_previous_session_id: str | None = None


class SessionGenerationBindings(Generic[B]):
    """Generation-aware binding operations over a lifecycle of GenerationRecord rows."""

    def __init__(
        self,
        lifecycle: NativeSessionBindingLifecycle[GenerationRecord[B]],
        *,
        never_reclaim: Callable[[B], bool] | None = None,
    ) -> None:
        self.lifecycle = lifecycle
        self._never_reclaim = never_reclaim or (lambda _binding: False)

    async def read(self, identity: SessionIdentity) -> B | None:
        """The binding, only if the row is active and owned by this generation."""
        row = await self.lifecycle.state.get(session_binding_key(identity))
        return _readable(row.record if row else None, identity)

    def read_sync(self, identity: SessionIdentity) -> B | None:
        """`read`, synchronously."""
        row = self.lifecycle.state.get_sync(session_binding_key(identity))
        return _readable(row.record if row else None, identity)

    async def set(self, identity: SessionIdentity, binding: B, *, if_absent: bool = False,
                  assert_current: Callable[[], None] | None = None) -> bool:
        """Store `binding` for this generation; False if another generation owns the row,
        the generation was retired, or (`if_absent`) an active binding exists."""

        def apply(current: GenerationRecord[B] | None, _token: str | None
                  ) -> tuple[bool, GenerationRecord[B] | None]:
            if current is not None and (
                    not current.owned_by(identity) or current.retired_fence
                    or (if_absent and current.state == "active")):
                return False, None
            return True, GenerationRecord("active", binding, identity.session_id)

        return await self._mutate(identity, apply, assert_current)

    async def clear(self, identity: SessionIdentity, *,
                    assert_current: Callable[[], None] | None = None) -> bool:
        """Clear this generation's binding; False if another generation owns the row."""

        def apply(current: GenerationRecord[B] | None, _token: str | None
                  ) -> tuple[bool, GenerationRecord[B] | None]:
            if current is None:
                return True, None
            if not current.owned_by(identity):
                return False, None
            if current.retired_fence:
                return True, None
            return True, GenerationRecord("cleared", None,
                                          current.session_id or identity.session_id)

        return await self._mutate(identity, apply, assert_current)

    async def prepare_session_generation_reclaim(self, identity: SessionIdentity) -> ReclaimPlan:
        """Resolve at once when nothing stale is stored; else ask for host verification."""
        row = await self.lifecycle.state.get(session_binding_key(identity))
        if row is None:
            return ReclaimPlan("resolved", True)
        current = row.record
        if current.session_id is None or current.session_id == identity.session_id:
            return ReclaimPlan("resolved", not current.retired_fence)
        return ReclaimPlan("verify", expected_previous_session_id=current.session_id)

    async def adopt_session_generation(
        self, identity: SessionIdentity, expected_previous_session_id: str, *,
        assert_current: Callable[[], None] | None = None,
    ) -> AdoptionResult:
        """Move an active binding from the predecessor to this generation."""
        expected = expected_previous_session_id.strip()
        if not expected:
            raise ValueError("adopting a session generation needs the previous session id")

        def apply(current: GenerationRecord[B] | None, _token: str | None
                  ) -> tuple[AdoptionResult, GenerationRecord[B] | None]:
            if current is None or current.state != "active":
                return "absent", None
            if current.session_id == identity.session_id:
                return "current", None
            if current.session_id != expected:
                return "conflict", None
            return "adopted", GenerationRecord("active", current.binding, identity.session_id)

        return await self._mutate(identity, apply, assert_current)

    async def reclaim(self, identity: SessionIdentity, expected_previous_session_id: str, *,
                      assert_current: Callable[[], None] | None = None) -> bool:
        """Clear a stale generation's row for this one; False if another generation won."""
        if not (identity.session_key or "").strip():
            return False

        def apply(current: GenerationRecord[B] | None, _token: str | None
                  ) -> tuple[bool, GenerationRecord[B] | None]:
            if current is None:
                return True, None
            if current.owned_by(identity):
                return not current.retired_fence, None
            if current.session_id != expected_previous_session_id:
                return False, None
            if current.state == "active" and current.binding is not None \
                    and self._never_reclaim(current.binding):
                return False, None
            return True, GenerationRecord("cleared", None, identity.session_id)

        return await self._mutate(identity, apply, assert_current)

    async def retire(self, identity: SessionIdentity, *,
                     assert_current: Callable[[], None] | None = None) -> RetirementResult:
        """Write a durable retired fence for this generation."""

        def apply(current: GenerationRecord[B] | None, _token: str | None
                  ) -> tuple[RetirementResult, GenerationRecord[B] | None]:
            if current is None:
                return "absent", None
            if not current.owned_by(identity):
                return "conflict", None
            if current.retired_fence:
                return "applied", None
            return "applied", GenerationRecord("cleared", None,
                                               current.session_id or identity.session_id,
                                               retired=True)

        return await self._mutate(identity, apply, assert_current)

    async def with_lease(self, identity: SessionIdentity, run: Callable[[], Awaitable[Any]], *,
                         assert_current: Callable[[], None] | None = None) -> Any:
        """Hold this identity's binding lease; a retired generation cannot be leased."""

        def prepare(current: GenerationRecord[B] | None, _lease: Lease
                    ) -> GenerationRecord[B] | None:
            if current is not None and current.retired_fence and current.owned_by(identity):
                return None
            if current is not None:
                return current
            return GenerationRecord("cleared", None, identity.session_id)

        return await self.lifecycle.with_lease(session_binding_key(identity), run,
                                               prepare_lease=prepare,
                                               assert_current=assert_current)

    def operations(self, identity: SessionIdentity) -> GenerationOperations:
        """The generation operations `reclaim_native_session_generation` drives."""
        return GenerationOperations(self, identity)

    async def _mutate(
        self, identity: SessionIdentity,
        apply: Callable[[GenerationRecord[B] | None, str | None],
                        tuple[R, GenerationRecord[B] | None]],
        assert_current: Callable[[], None] | None,
    ) -> R:
        key = session_binding_key(identity)

        async def run() -> R:
            return await self.lifecycle.transact(key, apply, assert_current=assert_current)

        return await self.lifecycle.with_mutation(run)


@dataclass(frozen=True, slots=True)
class GenerationOperations:
    """One identity's prepare / adopt / reclaim, bound for the host-side helpers."""

    bindings: SessionGenerationBindings[Any]
    identity: SessionIdentity

    async def prepare_reclaim(self) -> ReclaimPlan:
        """See `SessionGenerationBindings.prepare_session_generation_reclaim`."""
        return await self.bindings.prepare_session_generation_reclaim(self.identity)

    async def adopt(self, expected: str, authority: HostGenerationAuthority) -> AdoptionResult:
        """See `SessionGenerationBindings.adopt_session_generation`."""
        return await self.bindings.adopt_session_generation(
            self.identity, expected, assert_current=authority.assert_current)

    async def reclaim(self, expected: str, authority: HostGenerationAuthority) -> bool:
        """See `SessionGenerationBindings.reclaim`."""
        return await self.bindings.reclaim(self.identity, expected,
                                           assert_current=authority.assert_current)


def _readable(record: GenerationRecord[B] | None, identity: SessionIdentity) -> B | None:
    if record is None or record.state != "active" or not record.owned_by(identity):
        return None
    return record.binding


async def _reclaim_prepared(operations: GenerationOperations,
                            authority: HostGenerationAuthority, *, reclaim_stale: bool) -> bool:
    plan = await operations.prepare_reclaim()
    await authority.verify()
    if plan.kind == "resolved":
        return plan.result
    if authority.state != "current" or plan.expected_previous_session_id is None:
        return False
    # A verified predecessor is adopted before anything stale is reclaimed.
    if authority.previous_session_id == plan.expected_previous_session_id:
        adopted = await operations.adopt(plan.expected_previous_session_id, authority)
        if adopted != "absent":
            return adopted != "conflict"
    if not reclaim_stale:
        return False
    return await operations.reclaim(plan.expected_previous_session_id, authority)


async def reclaim_native_session_generation(
    store: Store, operations: GenerationOperations, *, reclaim_stale: bool = True,
    assert_current: Callable[[], None] | None = None,
    superseded_error: Callable[[str], Exception] = _superseded,
) -> bool:
    """Let the host's current generation adopt its predecessor or reclaim a stale row."""
    if assert_current is not None:
        assert_current()
    if not (operations.identity.session_key or "").strip():
        return True
    authority = await capture_native_session_generation_authority(
        store, operations.identity, assert_current=assert_current,
        superseded_error=superseded_error)
    if authority.state == "superseded":
        return False
    return await _reclaim_prepared(operations, authority, reclaim_stale=reclaim_stale)


@dataclass(frozen=True, slots=True)
class ResolvedNativeSessionBinding(Generic[B]):
    """A binding resolved under host authority, and that authority for later checks."""

    binding: B | None
    authority: HostGenerationAuthority


async def resolve_native_session_binding(
    store: Store, bindings: SessionGenerationBindings[B], identity: SessionIdentity, *,
    reclaim_stale: bool = False,
    assert_current: Callable[[], None] | None = None,
    assert_binding: Callable[[B | None], None] | None = None,
    superseded_error: Callable[[str], Exception] = _superseded,
) -> ResolvedNativeSessionBinding[B]:
    """Resolve host lineage first, then the binding it authorises.

    A superseded generation (or a failed host read) raises; with no binding yet, the
    current generation adopts its verified predecessor's (or, with `reclaim_stale`,
    reclaims a stale row) before reading again.
    """
    authority = await capture_native_session_generation_authority(
        store, identity, assert_current=assert_current, superseded_error=superseded_error)
    authority.assert_current()
    binding = await bindings.read(identity)
    await authority.verify()
    if binding is None and authority.state == "current":
        previous = authority.previous_session_id
        if assert_binding is not None and previous:
            assert_binding(await bindings.read(SessionIdentity(
                identity.agent_id, previous, identity.session_key)))
        reclaimed = await _reclaim_prepared(bindings.operations(identity), authority,
                                            reclaim_stale=reclaim_stale)
        if not reclaimed and reclaim_stale:
            raise superseded_error(identity.session_id)
        binding = await bindings.read(identity)
        await authority.verify()
    if assert_binding is not None:
        assert_binding(binding)
    return ResolvedNativeSessionBinding(binding, authority)
