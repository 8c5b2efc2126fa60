"""`SessionMeta`: what a session row knows besides its key, ids, model and pin.

Stored as a JSON object in the session row's `meta` column, under the original's
camelCase keys (`modelSelectionLocked`, `agentHarnessRuntimeOverride`,
`previousSessionId`, `resetAt`, `label`, `thinkingLevel`): the store converts at its edge
(`from_stored` on read, `to_stored` on write), so the core reads typed fields. Rows
written by older versions or by other tools load as they are: a known key of the wrong
type counts as absent, and keys this version does not know are kept in `extra` and
written back unchanged.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Final

from clawharness._json import JsonValue

__all__ = ["SessionMeta"]

_LOCKED: Final = "modelSelectionLocked"
_OVERRIDE: Final = "agentHarnessRuntimeOverride"
_PREVIOUS: Final = "previousSessionId"
_RESET_AT: Final = "resetAt"
_LABEL: Final = "label"
_THINKING: Final = "thinkingLevel"
_KNOWN: Final = frozenset({_LOCKED, _OVERRIDE, _PREVIOUS, _RESET_AT, _LABEL, _THINKING})
#: the thinking levels a session may hold (`config.schema.ThinkingLevel`)
_THINKING_LEVELS: Final = frozenset({"off", "minimal", "low", "medium", "high", "xhigh"})


@dataclass(frozen=True, slots=True)
class SessionMeta:
    """A session row's meta, typed."""

    #: the session's model may not change (a delegate runs only on a locked session)
    model_selection_locked: bool = False
    #: the runtime the owner forced for this session (the original's override field)
    agent_harness_runtime_override: str | None = None
    #: the physical session a reset replaced
    previous_session_id: str | None = None
    #: when the last reset happened (seconds since the epoch)
    reset_at: float | None = None
    #: the name an operator gave the session (the gateway's `label`)
    label: str | None = None
    #: the session's thinking level (`/think <level>`; docs/thinking.md), one of
    #: `off minimal low medium high xhigh`
    thinking_level: str | None = None
    #: stored keys this version does not know, kept as they were
    extra: Mapping[str, JsonValue] = field(default_factory=dict)

    def to_stored(self) -> dict[str, JsonValue]:
        """The JSON object the store writes."""
        out: dict[str, JsonValue] = dict(self.extra)
        if self.model_selection_locked:
            out[_LOCKED] = True
        if self.agent_harness_runtime_override is not None:
            out[_OVERRIDE] = self.agent_harness_runtime_override
        if self.previous_session_id is not None:
            out[_PREVIOUS] = self.previous_session_id
        if self.reset_at is not None:
            out[_RESET_AT] = self.reset_at
        if self.label is not None:
            out[_LABEL] = self.label
        if self.thinking_level is not None:
            out[_THINKING] = self.thinking_level
        return out

    def merged(self, facts: Mapping[str, JsonValue]) -> SessionMeta:
        """This meta with `facts` (stored keys: a front's own, or known ones) written over."""
        return SessionMeta.from_stored({**self.to_stored(), **facts})

    def holds(self, facts: Mapping[str, JsonValue]) -> bool:
        """Whether every one of `facts` is already stored as given."""
        stored = self.to_stored()
        return all(k in stored and stored[k] == v for k, v in facts.items())

    @classmethod
    def from_stored(cls, stored: Mapping[str, JsonValue]) -> SessionMeta:
        """The meta of a stored row (any version's)."""
        if not stored:
            return _EMPTY
        override, previous = stored.get(_OVERRIDE), stored.get(_PREVIOUS)
        reset_at, label = stored.get(_RESET_AT), stored.get(_LABEL)
        thinking = stored.get(_THINKING)
        return cls(
            model_selection_locked=stored.get(_LOCKED) is True,
            agent_harness_runtime_override=override if isinstance(override, str) and override
            else None,
            previous_session_id=previous if isinstance(previous, str) and previous else None,
            reset_at=float(reset_at) if isinstance(reset_at, int | float)
            and not isinstance(reset_at, bool) and math.isfinite(reset_at) else None,
            label=label if isinstance(label, str) else None,
            thinking_level=thinking if isinstance(thinking, str)
            and thinking in _THINKING_LEVELS else None,
            extra={k: v for k, v in stored.items() if k not in _KNOWN},
        )


_EMPTY: Final = SessionMeta()
