"""A bound native session its runtime no longer has: say so once, drop it, start anew.

A binding names a native session (a Claude conversation, a Codex thread, an ACP session).
When the runtime no longer has it (its config dir or CODEX_HOME moved, a new machine,
an agent that lost its store), resuming it fails the same way on every turn: without
recovery the host session is bricked for good.

The harness detects "gone" from the runtime's own error for an unknown session, never
from a failure in general (a transient failure must keep a good binding), and hands it to
`NativeSessionRecovery.session_gone`, which for every bundled harness alike:

1. logs one warning line, emits one agent event (stream `warning`, code
   `native_session_gone`) and keeps the text for the attempt result's `warnings`;
2. drops the stale binding through the binding lifecycle (`drop_gone_binding`): under
   the turn's own lease, and only while the row still names the gone session;
3. says whether the turn may start a fresh native session now: only while it has neither
   streamed output nor started a tool (`TurnProgress`). A turn that did is never
   silently replayed: it fails saying so, and the next turn starts fresh.

The fresh session's first prompt carries the host transcript (`bootstrap`); a second
"gone" in the same attempt is never retried, so recovery cannot loop.
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Final, Generic, TypeVar

# JsonValue: what `JsonObject` names, for get_type_hints() on these signatures
from clawharness._json import JsonObject, JsonValue  # noqa: F401
from clawharness.harness.types import AgentEvent, AttemptParams, AttemptResult
from clawharness.sessions.bindings.bootstrap import DEFAULT_CONTEXT_CHARS, transcript_context
from clawharness.sessions.bindings.lifecycle import NativeSessionBindingLifecycle

__all__ = [
    "NATIVE_SESSION_GONE",
    "WARNING_STREAM",
    "GoneOutcome",
    "NativeSessionGone",
    "NativeSessionRecovery",
    "TurnProgress",
    "native_session_cleared",
    "native_session_names",
    "native_session_recovery",
]

log = logging.getLogger("clawharness.sessions.bindings")

T = TypeVar("T")

#: the code of the warning (agent event `data.code`)
NATIVE_SESSION_GONE: Final = "native_session_gone"
#: the agent-event stream warnings travel on
WARNING_STREAM: Final = "warning"


@dataclass(frozen=True, slots=True)
class NativeSessionGone:
    """The runtime's own word that the bound native session does not exist."""

    native_session_id: str
    #: what the runtime said, as it said it
    detail: str


@dataclass(slots=True)
class TurnProgress:
    """What an attempt has done that running it again would repeat."""

    streamed_output: bool = False
    started_tool: bool = False

    def note_output(self) -> None:
        self.streamed_output = True

    def note_tool(self) -> None:
        self.started_tool = True

    @property
    def replay_safe(self) -> bool:
        return not (self.streamed_output or self.started_tool)

    def described(self) -> str:
        done = [what for what, flag in (("streamed output", self.streamed_output),
                                        ("started a tool", self.started_tool)) if flag]
        return " and ".join(done) or "done nothing yet"


@dataclass(frozen=True, slots=True)
class GoneOutcome:
    """What the harness does after a "gone": start a fresh native session now, or end
    the attempt with `error`."""

    start_fresh: bool
    warning: str
    dropped: bool
    error: str | None = None


def native_session_names(record: Mapping[str, object], native_session_id: str) -> bool:
    """Whether a native-session record (`{"nativeSessionId", ...}`) names that session."""
    return record.get("nativeSessionId") == native_session_id


def native_session_cleared(_record: Mapping[str, object]) -> JsonObject:
    """A native-session record with no session: the next start is a fresh one."""
    return {"nativeSessionId": None}


class NativeSessionRecovery(Generic[T]):
    """One attempt's handling of a native session its runtime reported gone."""

    def __init__(
        self,
        params: AttemptParams,
        *,
        harness_id: str,
        lifecycle: NativeSessionBindingLifecycle[T],
        key: str,
        names: Callable[[T, str], bool],
        cleared: Callable[[T], T],
        context_chars: int = DEFAULT_CONTEXT_CHARS,
        logger: logging.Logger | None = None,
    ) -> None:
        self.params = params
        self.harness_id = harness_id
        self.progress = TurnProgress()
        self.warnings: list[str] = []
        self.gone: NativeSessionGone | None = None
        self._lifecycle = lifecycle
        self._key = key
        self._names = names
        self._cleared = cleared
        self._context_chars = context_chars
        self._log = logger or log

    def context(self) -> str | None:
        """The host transcript, as a fresh native session's first prompt carries it."""
        return transcript_context(self.params.history, max_chars=self._context_chars)

    async def session_gone(self, gone: NativeSessionGone) -> GoneOutcome:
        """Warn once, drop the stale binding, and decide whether to start fresh now."""
        p = self.params
        if self.gone is not None:
            # the fresh session was refused too: never loop; the binding is already dropped
            message = (f"{self.harness_id}: the new native session {gone.native_session_id} "
                       f"was reported gone as well ({gone.detail}); the turn stops here")
            return GoneOutcome(False, message, dropped=False, error=message)
        self.gone = gone
        dropped = await self._lifecycle.drop_gone_binding(
            self._key, lambda record: self._names(record, gone.native_session_id),
            self._cleared)
        fresh = self.progress.replay_safe
        said = (gone.detail if gone.native_session_id in gone.detail
                else f"session {gone.native_session_id}: {gone.detail}")
        head = (f"{self.harness_id}: the native session is gone ({said}); "
                + ("its binding was dropped" if dropped else "no binding names it any more"))
        if fresh:
            message = (f"{head}; this turn goes on in a new native session, given the "
                       "conversation's transcript as context")
        else:
            message = (f"{head}. The turn had already {self.progress.described()}, so it was "
                       "not repeated; send it again to continue on a new native session")
        self._log.warning("session %s (run %s): %s", p.session_key, p.run_id, message)
        self.warnings.append(message)
        sink = p.on_agent_event
        if sink is not None:
            emitted = sink(AgentEvent(WARNING_STREAM, {
                "code": NATIVE_SESSION_GONE, "harnessId": self.harness_id,
                "nativeSessionId": gone.native_session_id, "detail": gone.detail,
                "recovered": fresh, "message": message}))
            if inspect.isawaitable(emitted):
                await emitted
        return GoneOutcome(fresh, message, dropped=dropped, error=None if fresh else message)

    def annotate(self, result: AttemptResult) -> AttemptResult:
        """`result` carrying this attempt's warnings (each once)."""
        for warning in self.warnings:
            if warning not in result.warnings:
                result.warnings.append(warning)
        return result


def native_session_recovery(
    params: AttemptParams, *, harness_id: str,
    lifecycle: NativeSessionBindingLifecycle[JsonObject], key: str,
    context_chars: int = DEFAULT_CONTEXT_CHARS, logger: logging.Logger | None = None,
) -> NativeSessionRecovery[JsonObject]:
    """The recovery of a harness whose bindings are native-session records
    (`native_session_bindings`: CLI agents, ACP agents)."""
    return NativeSessionRecovery(
        params, harness_id=harness_id, lifecycle=lifecycle, key=key,
        names=native_session_names, cleared=native_session_cleared,
        context_chars=context_chars, logger=logger)
