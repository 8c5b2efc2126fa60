"""`/compact` outside a turn: a session's oldest history summarised now, on request.

Under the session's writer lease (no turn runs meanwhile), its newest stored window is
read, the oldest span summarised by the session's model (or `compaction.model`) through
the built-in runtime's isolated completion, and the summary stored as a transcript entry
of its own kind; the next turn's prompt starts from it (`clawharness.attempt.compaction`).
"""

from __future__ import annotations

import inspect
import time
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from clawharness._ids import new_id
from clawharness.attempt.compaction import (
    CompactionPlan,
    compact_window,
    isolated_summariser,
    turn_budget,
)
from clawharness.config import agent_compaction, agent_context_pruning
from clawharness.context import PruningRules, keyed
from clawharness.errors import ConfigError
from clawharness.harness.types import CompactParams
from clawharness.models.routes import known_provider_ids, resolve_route
from clawharness.names.model_refs import parse_model_ref
from clawharness.records.compaction import CompactionResult
from clawharness.redaction.outbound import redact_transcript_message
from clawharness.sessions.transcript import TranscriptMirror, entry_to_message
from clawharness.store import SessionRecord, Store

if TYPE_CHECKING:
    from clawharness.config.schema import ClawConfig
    from clawharness.sessions.writers import SessionWriters

__all__ = ["HISTORY_LIMIT", "compact_native_session", "compact_session"]

#: the newest stored entries a compaction reads (a turn's own window)
HISTORY_LIMIT = 200


def _model_text(config: ClawConfig, record: SessionRecord) -> str:
    settings = agent_compaction(config.agents, record.agent_id)
    if settings.model:
        return settings.model
    if record.model_ref:
        return record.model_ref
    entry = config.agents.entries.get(record.agent_id)
    if entry is not None and entry.model is not None and entry.model.primary:
        return entry.model.primary
    model = config.agents.defaults.model
    if model is not None and model.primary:
        return model.primary
    raise ConfigError("no model to summarise with: set agents.defaults.model",
                      key_path="agents.defaults.model")


async def compact_session(record: SessionRecord, *, store: Store, writers: SessionWriters,
                          config: ClawConfig, env: Mapping[str, str], builtin: Any,
                          providers: Mapping[str, Any], system_prompt: str | None,
                          tools: Sequence[Any], focus: str | None = None) -> CompactionResult:
    """Compact session `record` now (see the module docstring). `builtin`: the built-in
    runtime (its isolated completion summarises); `providers`: the plugins' providers;
    `system_prompt` and `tools`: the agent's, which a turn's budget leaves room for."""
    ref = parse_model_ref(_model_text(config, record), known_providers=known_provider_ids(
        config, providers), models_by_provider={
            p: [m.id for m in c.models] for p, c in config.models.providers.items()})
    route = resolve_route(config, ref, env=env, extra_providers=providers)
    settings = agent_compaction(config.agents, record.agent_id)
    rules = PruningRules.from_config(agent_context_pruning(config.agents, record.agent_id))
    plan = CompactionPlan(
        turn_budget(route.model, settings, system_prompt=system_prompt, tools=tools),
        settings, rules,
        isolated_summariser(builtin, route.model, route.auth,
                            agent_id=record.agent_id, timeout=settings.timeout_seconds))
    async with writers.hold(record.key, purpose="compact") as slot:
        entries = await store.read_entries(record.session_id, last=HISTORY_LIMIT)
        run_id = new_id()
        mirror = TranscriptMirror(store, record.key, record.session_id, run_id,
                                  fence=slot.fence, scrub=redact_transcript_message)

        async def append(message: dict[str, Any]) -> int | None:
            await mirror([keyed(message, f"{run_id}:compaction")])
            await mirror.flush()
            return mirror.appended[-1].entry.seq if mirror.appended else None

        return await compact_window([entry_to_message(e) for e in entries], plan, append,
                                    session_key=record.key, focus=focus)


async def compact_native_session(record: SessionRecord, harness: Any, *,
                                 focus: str | None = None) -> CompactionResult:
    """`/compact` on a session a plugin harness runs: its runtime's own compaction
    (`harness.compact(CompactParams)`), or a refusal saying it has none; never a host
    summary of a native context the host does not own."""
    started = time.perf_counter()
    compact = getattr(harness, "compact", None)
    harness_id = str(getattr(harness, "id", "?"))
    if not callable(compact):
        return CompactionResult(record.key, False,
                                reason=f'Agent harness "{harness_id}" does not support '
                                       "compaction.")
    outcome = compact(CompactParams(agent_id=record.agent_id, session_key=record.key,
                                    session_id=record.session_id, focus=focus))
    if inspect.isawaitable(outcome):
        outcome = await outcome
    answer: Mapping[str, Any] = outcome if isinstance(outcome, Mapping) else {}
    compacted = bool(answer.get("compacted"))
    reason = answer.get("reason")
    return CompactionResult(
        record.key, compacted,
        reason=str(reason) if reason else (f"native ({harness_id})" if compacted else
                                           f'Agent harness "{harness_id}" did not compact.'),
        duration_ms=(time.perf_counter() - started) * 1000)
