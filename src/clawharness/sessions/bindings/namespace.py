"""One plugin-state namespace seen through a record codec, in async and sync views.

Native harnesses keep their bindings as rows of the store's `plugin_state` table. This
module gives them typed rows: every value is versioned JSON (`{"version": 1, ...}`),
decoded by a codec that refuses a newer version it does not know, and bounded in size so
a binding can never grow without limit (store `sha256:<64hex>` fingerprints instead of
large canonical values). Both views read and write the same rows: the async one for
ordinary work, the sync one for lease assertions and the synchronous `commit()` of a
deletion transaction.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar

from clawharness.sessions.bindings.errors import (
    InvalidRecordError,
    UnsupportedRecordVersionError,
    ValueTooLargeError,
)
from clawharness.store import PluginStateRecord, PluginStateStore

__all__ = [
    "MAX_VALUE_BYTES",
    "DictRecordCodec",
    "InvalidRecordError",
    "Lease",
    "PluginStateNamespace",
    "RecordCodec",
    "Row",
    "UnsupportedRecordVersionError",
    "ValueTooLargeError",
    "bound_fingerprint",
    "canonical_json",
    "fingerprint",
    "is_fingerprint",
]

#: the largest encoded value one row may hold
MAX_VALUE_BYTES = 64 * 1024

_FINGERPRINT = re.compile(r"^sha256:[0-9a-f]{64}$")

T = TypeVar("T")


def canonical_json(value: Any) -> str:
    """The one spelling of a JSON value used for sizes, fingerprints and equality."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False,
                      allow_nan=False)


def fingerprint(value: Any) -> str:
    """`sha256:<64hex>` of a value's canonical JSON (a string is hashed as it is)."""
    text = value if isinstance(value, str) else canonical_json(value)
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


def is_fingerprint(value: object) -> bool:
    """True for a bounded `sha256:<64hex>` fingerprint."""
    return isinstance(value, str) and _FINGERPRINT.match(value) is not None


def bound_fingerprint(value: str) -> str:
    """Keep a bounded fingerprint as it is; hash an unbounded canonical one."""
    return value if is_fingerprint(value) or value in ("", "[]") else fingerprint(value)


@dataclass(frozen=True, slots=True)
class Lease:
    """An exact-token lease on a row: whoever holds `token` owns the row until expiry."""

    token: str
    expires_at: float

    def live(self, now: float) -> bool:
        """True while the lease has not expired."""
        return self.expires_at > now


@dataclass(frozen=True, slots=True)
class Row(Generic[T]):
    """One decoded row: its record, the raw JSON it came from, generation and lease."""

    key: str
    record: T
    raw: Any
    generation: int
    lease: Lease | None


class RecordCodec(Protocol[T]):
    """Turns records into versioned JSON objects and back."""

    #: the newest record version this codec writes and reads
    version: int

    def encode(self, record: T) -> dict[str, Any]:
        """The JSON object for `record`, including `"version"`."""
        ...

    def decode(self, raw: Any) -> T:
        """The record in `raw`; InvalidRecordError / UnsupportedRecordVersionError if not."""
        ...


class DictRecordCodec:
    """The plain codec: a record is the JSON object without its `version` key.

    `validate` may check or normalise the body (raise ValueError/TypeError to refuse it);
    `upgrade` maps an older version's body to the current one.
    """

    def __init__(
        self,
        *,
        version: int = 1,
        validate: Callable[[dict[str, Any]], dict[str, Any]] | None = None,
        upgrade: Mapping[int, Callable[[dict[str, Any]], dict[str, Any]]] | None = None,
    ) -> None:
        self.version = version
        self._validate = validate
        self._upgrade = dict(upgrade or {})

    def encode(self, record: dict[str, Any]) -> dict[str, Any]:
        """`{"version": N, **record}` after validation."""
        body = {k: v for k, v in record.items() if k != "version"}
        if self._validate is not None:
            body = self._validate(body)
        return {"version": self.version, **body}

    def decode(self, raw: Any) -> dict[str, Any]:
        """The body of a versioned object, upgraded to the current version."""
        if not isinstance(raw, dict):
            raise InvalidRecordError(f"expected a JSON object, got {type(raw).__name__}")
        version = raw.get("version")
        if not isinstance(version, int) or isinstance(version, bool) or version < 1:
            raise InvalidRecordError(f"record has no valid version: {version!r}")
        if version > self.version:
            raise UnsupportedRecordVersionError(
                f"record version {version} is newer than this release reads ({self.version}); "
                "upgrade clawharness before using this state"
            )
        body = {k: v for k, v in raw.items() if k != "version"}
        while version < self.version:
            step = self._upgrade.get(version)
            if step is None:
                raise InvalidRecordError(f"no upgrade from record version {version}")
            body = step(body)
            version += 1
        if self._validate is not None:
            try:
                body = self._validate(body)
            except (ValueError, TypeError) as exc:
                raise InvalidRecordError(f"invalid record: {exc}") from exc
        return body


class PluginStateNamespace(Generic[T]):
    """Typed rows of one plugin-state namespace, with conditional writes.

    Every write is conditional: `register_if_absent` inserts only a missing key,
    `update_if_current` and `delete_if` act only on the generation the caller read. A
    `None`/`False` answer means another writer got there first.
    """

    def __init__(
        self,
        store: PluginStateStore,
        namespace: str,
        codec: RecordCodec[T],
        *,
        max_value_bytes: int = MAX_VALUE_BYTES,
    ) -> None:
        self.store = store
        self.namespace = namespace
        self.codec = codec
        self.max_value_bytes = max_value_bytes

    # encoding ---------------------------------------------------------------------
    def encode(self, record: T) -> dict[str, Any]:
        """The stored JSON for `record`; ValueTooLargeError over the size limit."""
        raw = self.codec.encode(record)
        size = len(canonical_json(raw).encode("utf-8"))
        if size > self.max_value_bytes:
            raise ValueTooLargeError(
                f"value for namespace {self.namespace!r} is {size} bytes, over the limit of "
                f"{self.max_value_bytes}; store large values as sha256 fingerprints"
            )
        return raw

    def decode_row(self, stored: PluginStateRecord | None) -> Row[T] | None:
        """The decoded row, or None for a missing one. InvalidRecordError names the key."""
        if stored is None:
            return None
        try:
            record = self.codec.decode(stored.value)
        except InvalidRecordError as exc:
            raise type(exc)(
                f"invalid row {stored.key!r} in namespace {self.namespace!r}: {exc}"
            ) from exc
        lease = None
        if stored.lease_token is not None and stored.lease_expires_at is not None:
            lease = Lease(stored.lease_token, float(stored.lease_expires_at))
        return Row(stored.key, record, stored.value, stored.generation, lease)

    @staticmethod
    def _lease_args(lease: Lease | None) -> dict[str, Any]:
        if lease is None:
            return {"lease_token": None, "lease_expires_at": None}
        return {"lease_token": lease.token, "lease_expires_at": lease.expires_at}

    # async view -------------------------------------------------------------------
    async def get(self, key: str) -> Row[T] | None:
        """The row under `key`, or None."""
        return self.decode_row(await self.store.state_get(self.namespace, key))

    async def list_rows(self, *, prefix: str = "") -> list[Row[T]]:
        """Every row whose key starts with `prefix`."""
        rows = await self.store.state_list(self.namespace, prefix=prefix)
        return [row for row in (self.decode_row(r) for r in rows) if row is not None]

    async def register_if_absent(
        self, key: str, record: T, *, lease: Lease | None = None
    ) -> Row[T] | None:
        """Insert a new row; None when the key exists."""
        stored = await self.store.state_insert_if_absent(
            self.namespace, key, self.encode(record), **self._lease_args(lease))
        return self.decode_row(stored)

    async def register_raw_if_absent(
        self, key: str, raw: Any, *, lease: Lease | None = None
    ) -> Row[T] | None:
        """Re-insert exactly the JSON a row held before (recovery of a deletion)."""
        stored = await self.store.state_insert_if_absent(
            self.namespace, key, raw, **self._lease_args(lease))
        return self.decode_row(stored)

    async def update_if_current(
        self, key: str, expected_generation: int, record: T, *, lease: Lease | None = None
    ) -> Row[T] | None:
        """Replace the row (value and lease) if it is still at `expected_generation`."""
        stored = await self.store.state_update_if(
            self.namespace, key, expected_generation, self.encode(record),
            **self._lease_args(lease))
        return self.decode_row(stored)

    async def update_raw_if_current(
        self, key: str, expected_generation: int, raw: Any, *, lease: Lease | None = None
    ) -> Row[T] | None:
        """Rewrite a row's exact JSON (to change only its lease) at `expected_generation`."""
        stored = await self.store.state_update_if(
            self.namespace, key, expected_generation, raw, **self._lease_args(lease))
        return self.decode_row(stored)

    async def delete_if(self, key: str, expected_generation: int) -> bool:
        """Delete the row if it is still at `expected_generation`."""
        return await self.store.state_delete_if(self.namespace, key, expected_generation)

    # sync view --------------------------------------------------------------------
    def get_sync(self, key: str) -> Row[T] | None:
        """`get`, synchronously (lease assertions, deletion commit)."""
        return self.decode_row(self.store.state_get_sync(self.namespace, key))

    def register_if_absent_sync(
        self, key: str, record: T, *, lease: Lease | None = None
    ) -> Row[T] | None:
        """`register_if_absent`, synchronously."""
        stored = self.store.state_insert_if_absent_sync(
            self.namespace, key, self.encode(record), **self._lease_args(lease))
        return self.decode_row(stored)

    def register_raw_if_absent_sync(
        self, key: str, raw: Any, *, lease: Lease | None = None
    ) -> Row[T] | None:
        """Re-insert exactly the JSON a row held before (used to undo a deletion)."""
        stored = self.store.state_insert_if_absent_sync(
            self.namespace, key, raw, **self._lease_args(lease))
        return self.decode_row(stored)

    def update_if_current_sync(
        self, key: str, expected_generation: int, record: T, *, lease: Lease | None = None
    ) -> Row[T] | None:
        """`update_if_current`, synchronously."""
        stored = self.store.state_update_if_sync(
            self.namespace, key, expected_generation, self.encode(record),
            **self._lease_args(lease))
        return self.decode_row(stored)

    def update_raw_if_current_sync(
        self, key: str, expected_generation: int, raw: Any, *, lease: Lease | None = None
    ) -> Row[T] | None:
        """`update_raw_if_current`, synchronously."""
        stored = self.store.state_update_if_sync(
            self.namespace, key, expected_generation, raw, **self._lease_args(lease))
        return self.decode_row(stored)

    def delete_if_sync(self, key: str, expected_generation: int) -> bool:
        """`delete_if`, synchronously."""
        return self.store.state_delete_if_sync(self.namespace, key, expected_generation)
