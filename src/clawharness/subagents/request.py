"""`sessions_spawn`'s arguments, its results and the announcement, as pure values.

The tool has OpenClaw's shape (`task`, `label`, `runtime`, `agentId`, `model`,
`runTimeoutSeconds`) and the issue's `context: "fresh" | "fork"`. Its result is
OpenClaw's `jsonResult`: the JSON as text, and the same object as `details`, which
`clawharness.runtime_plan.spawns` reads back (`status: "accepted"`, `childSessionKey`,
`runId`, `expectsCompletionMessage`).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final, Literal

from clawharness.errors import SubagentError
from clawharness.store import SubagentRecord, TranscriptEntry

__all__ = [
    "ACCEPTED_NOTE",
    "SPAWN_PARAMETERS",
    "SpawnRequest",
    "announcement",
    "parse_spawn_request",
    "settled_through",
    "spawn_result",
]

#: the runtimes `runtime` names as OpenClaw spells them: the normal selection
_SELECTED: Final = frozenset({"", "subagent", "auto", "default"})
_AGENT_ID = re.compile(r"^[a-z0-9][a-z0-9_-]{0,63}$", re.IGNORECASE)

#: what the parent's model is told after an accepted spawn (OpenClaw's advice, shortened)
ACCEPTED_NOTE: Final = (
    "The child runs in the background and announces its result to this session when it "
    "ends, as a message. Do not poll for it; go on with other work, or end your turn.")

SPAWN_PARAMETERS: Final[Mapping[str, Any]] = {
    "type": "object",
    "properties": {
        "task": {"type": "string", "description": "What the child session is to do."},
        "label": {"type": "string", "description": "A short name for the child."},
        "runtime": {"type": "string", "description": (
            "Where the child runs: 'subagent' (default: the normal runtime selection), "
            "or a runtime id: 'openclaw' (built-in), 'codex', 'claude-cli', "
            "'acp/<agent>'.")},
        "agentId": {"type": "string", "description": (
            "The agent the child runs as (default: this session's agent).")},
        "model": {"type": "string", "description": "The child's model (provider/model)."},
        "context": {"type": "string", "enum": ["fresh", "fork"], "description": (
            "'fresh' (default): the child starts with only the task; 'fork': the child "
            "starts with a copy of this session's transcript so far.")},
        "runTimeoutSeconds": {"type": "number", "minimum": 0, "description": (
            "Stop the child after this many seconds (0: no limit).")},
    },
    "required": ["task"],
}


@dataclass(frozen=True, slots=True)
class SpawnRequest:
    """One `sessions_spawn` call, checked."""

    task: str
    label: str | None = None
    #: a runtime id to run the child on, None for the normal selection
    runtime: str | None = None
    agent_id: str | None = None
    model: str | None = None
    context: Literal["fresh", "fork"] = "fresh"
    #: None: the configured default (`agents.defaults.subagents.runTimeoutSeconds`)
    run_timeout_seconds: int | None = None


def _text(args: Mapping[str, Any], key: str) -> str | None:
    value = args.get(key)
    if value is None:
        return None
    if not isinstance(value, str):
        raise SubagentError(f"sessions_spawn: {key!r} must be a string")
    return value.strip() or None


def parse_spawn_request(args: Mapping[str, Any]) -> SpawnRequest:
    """The call's arguments as a `SpawnRequest`; `SubagentError` saying what is wrong."""
    task = _text(args, "task")
    if task is None:
        raise SubagentError("sessions_spawn: 'task' is required (what the child is to do)")
    context = _text(args, "context") or "fresh"
    if context not in ("fresh", "fork"):
        raise SubagentError(f"sessions_spawn: context {context!r} is not 'fresh' or 'fork'")
    agent_id = _text(args, "agentId")
    if agent_id is not None and not _AGENT_ID.match(agent_id):
        raise SubagentError(f"sessions_spawn: invalid agentId {agent_id!r} (agent ids match "
                            "[a-z0-9][a-z0-9_-]{0,63})")
    runtime = _text(args, "runtime")
    if runtime is not None and runtime.lower() in _SELECTED:
        runtime = None
    elif runtime is not None and runtime.lower() == "acp":
        raise SubagentError("sessions_spawn: runtime 'acp' needs the ACP agent's name: "
                            "runtime 'acp/<agent>'")
    timeout = args.get("runTimeoutSeconds", args.get("timeoutSeconds"))
    seconds: int | None = None
    if timeout is not None:
        if (isinstance(timeout, bool) or not isinstance(timeout, int | float)
                or not math.isfinite(timeout) or timeout < 0):
            raise SubagentError("sessions_spawn: runTimeoutSeconds must be a number >= 0")
        seconds = int(timeout)
    return SpawnRequest(task=task, label=_text(args, "label"), runtime=runtime,
                        agent_id=agent_id, model=_text(args, "model"),
                        context="fork" if context == "fork" else "fresh",
                        run_timeout_seconds=seconds)


def spawn_result(status: Literal["accepted", "forbidden", "error"], *,
                 error: str | None = None, record: SubagentRecord | None = None,
                 model_applied: bool = False) -> dict[str, Any]:
    """The tool result: OpenClaw's `jsonResult` of its spawn result."""
    details: dict[str, Any] = {"status": status}
    if record is not None:
        details.update(childSessionKey=record.child_key, runId=record.run_id, mode="run",
                       context=record.context, depth=record.depth,
                       expectsCompletionMessage=True, note=ACCEPTED_NOTE,
                       modelApplied=model_applied)
        if record.runtime:
            details["runtime"] = record.runtime
        if record.label:
            details["label"] = record.label
    if error is not None:
        details["error"] = error
    result: dict[str, Any] = {
        "content": [{"type": "text", "text": json.dumps(details, indent=2)}],
        "details": details}
    if status != "accepted":
        result["isError"] = True
    return result


def announcement(record: SubagentRecord) -> str:
    """The message the parent session receives when its child ends (OpenClaw announces a
    child's completion to its requester as a message of the next turn)."""
    name = f'"{record.label}"' if record.label else record.child_key
    ended = {"ok": "completed", "error": "failed", "timeout": "timed out",
             "killed": "was killed", "interrupted": "was interrupted"}.get(record.status,
                                                                           record.status)
    lines = [f"[Subagent] The sub-agent task {name} {ended}.",
             f"child session: {record.child_key} (run {record.run_id}, status "
             f"{record.status})", f"task: {record.task}"]
    if record.result:
        lines += ["", "Result:", record.result]
    if record.error:
        lines += ["", f"Error: {record.error}"]
    return "\n".join(lines)


def _blocks(entry: TranscriptEntry) -> Sequence[Any]:
    content = entry.content if isinstance(entry.content, Mapping) else {}
    blocks = content.get("content")
    return blocks if isinstance(blocks, list) else ()


def settled_through(entries: Sequence[TranscriptEntry]) -> int | None:
    """The seq of the last entry after which no tool call is left without its result
    (where a fork taken during a turn may cut: the spawning call itself has none yet);
    None when there is no such entry."""
    open_calls: set[str] = set()
    through: int | None = None
    for entry in entries:
        if entry.role == "assistant":
            open_calls.update(str(b["id"]) for b in _blocks(entry)
                              if isinstance(b, Mapping) and b.get("type") == "toolCall"
                              and b.get("id"))
        elif entry.role == "toolResult" and isinstance(entry.content, Mapping):
            open_calls.discard(str(entry.content.get("toolCallId")))
        if not open_calls:
            through = entry.seq
    return through
