"""The sub-agent registry's records: one row per child session a `sessions_spawn` started.

A row names the parent (the requester's session key), the child's session key and run
id, what it was asked (task, label, context `fresh` or `fork`, runtime, model), its depth
(1 for a child of a top-level session), its status and, once it ended, its result text
or error, and the HTTP API caller whose turn spawned it (or its parent), whose per-caller
budgets its turns count on too. `owner` is the host instance running the child and `heartbeat_at` when that
host last said it still runs it: a `running` row whose owner stopped beating is shown
as lost (`SubagentRecord.lost`). A kill from anywhere (another process, the CLI) is a
conditional write of status `killed`; the owner sees it at its next beat and aborts the
child's turn.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final, Literal

__all__ = [
    "ACTIVE_STATUSES",
    "SUBAGENT_COLUMNS",
    "TERMINAL_STATUSES",
    "SubagentRecord",
    "SubagentStatus",
    "row_to_subagent",
]

SubagentStatus = Literal["queued", "running", "ok", "error", "timeout", "killed",
                         "interrupted"]
#: a child in one of these still runs (or waits for a concurrency slot)
ACTIVE_STATUSES: Final[tuple[SubagentStatus, ...]] = ("queued", "running")
#: a child in one of these has ended
TERMINAL_STATUSES: Final[tuple[SubagentStatus, ...]] = ("ok", "error", "timeout", "killed",
                                                        "interrupted")
#: the row's columns, in `row_to_subagent`'s order
SUBAGENT_COLUMNS: Final = ("child_key, parent_key, run_id, agent_id, status, depth, task, "
                           "label, context, runtime, model_ref, owner, created_at, "
                           "heartbeat_at, ended_at, result, error, announced, caller")


@dataclass(frozen=True, slots=True)
class SubagentRecord:
    """One spawned child session (see the module docstring)."""

    child_key: str
    parent_key: str
    run_id: str
    agent_id: str
    status: SubagentStatus
    depth: int
    task: str
    label: str | None = None
    context: Literal["fresh", "fork"] = "fresh"
    #: the runtime asked for (a harness id), None for the normal selection
    runtime: str | None = None
    model_ref: str | None = None
    owner: str | None = None
    created_at: float = 0.0
    heartbeat_at: float = 0.0
    ended_at: float | None = None
    #: the child's final reply text (ok), None until it ended
    result: str | None = None
    error: str | None = None
    #: the parent was told of the ending
    announced: bool = False
    #: the HTTP API caller of the turn that spawned it (`TurnOptions.caller`), inherited
    #: from its parent's: its turns count on that caller's budgets (`budgets.perCaller`)
    caller: str | None = None

    @property
    def active(self) -> bool:
        return self.status in ACTIVE_STATUSES

    def lost(self, now: float, *, after: float) -> bool:
        """Active, but its owner has not beaten for `after` seconds (its process died)."""
        return self.active and now - self.heartbeat_at > after

    def values(self) -> tuple[Any, ...]:
        """The row's values, in `SUBAGENT_COLUMNS` order."""
        return (self.child_key, self.parent_key, self.run_id, self.agent_id, self.status,
                self.depth, self.task, self.label, self.context, self.runtime,
                self.model_ref, self.owner, self.created_at, self.heartbeat_at,
                self.ended_at, self.result, self.error, self.announced, self.caller)


def row_to_subagent(row: Sequence[Any]) -> SubagentRecord:
    """A stored row (`SUBAGENT_COLUMNS` order) as its record."""
    return SubagentRecord(
        child_key=str(row[0]), parent_key=str(row[1]), run_id=str(row[2]),
        agent_id=str(row[3]), status=row[4], depth=int(row[5]), task=str(row[6]),
        label=row[7], context="fork" if row[8] == "fork" else "fresh", runtime=row[9],
        model_ref=row[10], owner=row[11], created_at=float(row[12]),
        heartbeat_at=float(row[13]), ended_at=None if row[14] is None else float(row[14]),
        result=row[15], error=row[16], announced=bool(row[17]), caller=row[18])
