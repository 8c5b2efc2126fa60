"""Tool side effects exactly once across retried turns: the ledger a harness consults.

A turn run by a cluster worker can die mid-tool-call and be retried on another worker
under the same run id. Each tool call has an idempotency key (session, run, call id):

- `begin` claims the key in the store before the tool runs (committed first);
- `commit` stores the terminal outcome before the model sees it;
- on a retry, `begin` finds the key: a committed outcome is *replayed* (the tool does
  not run again); a state-changing call that started with no committed outcome is
  *interrupted with unknown effect* and never silently re-run; a read-only call
  (`is_replay_safe_tool_call`) simply runs again.

`decide` is the pure rule; `ToolOutcomeLedger` the store-backed machinery (the host's
`clawharness.harness.ToolOutcomes`). A harness gets a ledger as `AttemptParams.tool_outcomes` (None for turns run in-process, which are
never retried) through `clawharness.plugin_sdk.agent_harness_tool_runtime`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from clawharness.harness.tool_spec import ToolCallDecision
from clawharness.store import ToolCallClaim, ToolCallKey
from clawharness.tools.replay import is_replay_safe_tool_call

if TYPE_CHECKING:
    from clawharness.store import ToolOutcomeStore

__all__ = ["ToolCallDecision", "ToolOutcomeLedger", "decide", "interrupted_text"]


def interrupted_text(tool_name: str) -> str:
    return (f"Tool {tool_name!r} was interrupted with unknown effect: an earlier attempt of "
            "this turn started it and was lost before its outcome was recorded, so it was "
            "not run again. Check whether its effect happened before relying on it or "
            "repeating it.")


def decide(claim: ToolCallClaim) -> ToolCallDecision:
    """The rule: a fresh claim runs; a committed outcome replays; a started call with no
    outcome re-runs only when it is read-only."""
    record = claim.record
    if claim.fresh:
        return ToolCallDecision("run")
    if record.committed:
        stored = record.outcome or {}
        result = stored.get("result")
        error = stored.get("error")
        return ToolCallDecision("replay", result if isinstance(result, dict) else None,
                                str(error) if error is not None else None)
    if not record.state_changing:
        return ToolCallDecision("run")
    return ToolCallDecision("interrupted", error=interrupted_text(record.tool_name))


class ToolOutcomeLedger:
    """The tool calls of one run of one session, exactly once across its attempts."""

    def __init__(self, store: ToolOutcomeStore, session_id: str, run_id: str) -> None:
        self._store = store
        self.session_id = session_id
        self.run_id = run_id

    def key(self, call_id: str) -> ToolCallKey:
        return ToolCallKey(self.session_id, self.run_id, call_id)

    async def begin(self, call_id: str, tool_name: str,
                    arguments: Mapping[str, Any]) -> ToolCallDecision:
        """Claim the call (committed before this returns) and say what to do with it."""
        claim = await self._store.claim_tool_call(
            self.key(call_id), tool_name=tool_name,
            state_changing=not is_replay_safe_tool_call(tool_name, arguments))
        return decide(claim)

    async def commit(self, call_id: str, result: Mapping[str, Any] | None,
                     error: str | None) -> None:
        """Store the call's terminal outcome; call it before the model sees the result."""
        await self._store.commit_tool_outcome(
            self.key(call_id), outcome={"result": None if result is None else dict(result),
                                        "error": error},
            is_error=error is not None or bool((result or {}).get("isError")))
