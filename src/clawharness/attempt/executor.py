"""Where a host's turns run: `TurnExecutor`, and the local one, the turn runner.

`Host` takes one executor when it starts, chosen when it is made: `LocalTurnExecutor`
(turns run here), or with a cluster URL the cluster's (`clawharness.cluster.front`:
turns run on its workers). The host asks it for every turn the same way.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Protocol

from clawharness._gc import GcTuning

if TYPE_CHECKING:
    from clawharness.attempt.turn import TurnOptions, TurnRunner
    from clawharness.records import TurnResult

__all__ = ["LocalTurnExecutor", "TurnExecutor"]


class TurnExecutor(Protocol):
    """Runs a host's turns, here or elsewhere."""

    async def run_turn(self, session_key: str, message: str,
                       options: TurnOptions) -> TurnResult:
        """Run one turn on a (full) session key."""
        ...

    async def close(self) -> None:
        """Let what is under way finish its bookkeeping; the host is closing."""
        ...


class LocalTurnExecutor:
    """Turns run in this process by the turn runner. A caller in another process (a
    cluster front, through its worker) passes its trace context; the turn's spans
    continue that trace.

    The runner is made by `make_runner` when it is first needed: a host that runs no
    turn (`clawharness sessions list`, `status`) never imports the turn runner."""

    def __init__(self, make_runner: Callable[[], TurnRunner]) -> None:
        self._make_runner = make_runner
        self._runner: TurnRunner | None = None
        self._continued_trace: Callable[[Mapping[str, str]],
                                        AbstractContextManager[object]] | None = None

    @property
    def runner(self) -> TurnRunner:
        if self._runner is None:
            self._runner = self._make_runner()
        return self._runner

    async def run_turn(self, session_key: str, message: str,
                       options: TurnOptions) -> TurnResult:
        if self._continued_trace is None:
            # the span helpers (and OpenTelemetry) load with the first turn: a host that
            # runs none, like `sessions list`'s, does without them (kept, not imported
            # again per turn)
            from clawharness.observability.spans import continued_trace

            self._continued_trace = continued_trace
        GcTuning.turn_started()  # the collector's young threshold follows the load
        try:
            with self._continued_trace(options.trace_context or {}):
                return await self.runner.run(session_key, message, options)
        finally:
            GcTuning.turn_ended()

    async def close(self) -> None:
        if self._runner is not None:
            await self._runner.drain()
