"""Where a forked session came from, in the stored shape the original's camelCase keeps."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from clawharness._json import JsonValue

__all__ = ["ForkOrigin"]

_SESSION_KEY: Final = "sessionKey"
_SESSION_ID: Final = "sessionId"
_THROUGH_SEQ: Final = "throughSeq"


@dataclass(frozen=True, slots=True)
class ForkOrigin:
    """The source of a fork: its session, the last seq copied and when (`meta["forkedFrom"]`).

    A copied entry's provenance is the same origin with `through_seq` its own seq."""

    session_key: str
    session_id: str
    through_seq: int
    at: float | None = None

    def session_ref(self) -> dict[str, JsonValue]:
        return {_SESSION_KEY: self.session_key, _SESSION_ID: self.session_id}

    def to_stored(self) -> dict[str, JsonValue]:
        stored = {**self.session_ref(), _THROUGH_SEQ: self.through_seq}
        if self.at is not None:
            stored["at"] = self.at
        return stored

    def to_provenance(self) -> dict[str, JsonValue]:
        return {**self.session_ref(), "seq": self.through_seq}
