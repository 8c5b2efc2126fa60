"""Step one of a turn: prepare. Under the session's writer lease, read the session and
resolve what every later step reads: the model chain, the pin, the workspace, the
deadline, the turn's budgets (`PreparedTurn`). Nothing here runs a model or writes."""

from __future__ import annotations

import asyncio
import logging
import os
from dataclasses import dataclass
from pathlib import Path

from clawharness.attempt.budget_step import TurnSpend
from clawharness.attempt.inspector import TurnRecorder
from clawharness.attempt.turn_options import TurnContext, TurnOptions
from clawharness.errors import ClawHarnessError, ConfigError, WorkspaceInvalidError
from clawharness.harness import quick_maker
from clawharness.models.routes import known_provider_ids
from clawharness.names.model_refs import ModelRef, parse_model_ref
from clawharness.store import SessionLease, SessionRecord, SessionStore

__all__ = ["PreparedTurn", "TurnPreparer", "check_workspace"]

log = logging.getLogger("clawharness.turn")

#: parsed model refs a preparer keeps (forgotten all at once past this)
_MAX_REFS = 256


@dataclass(frozen=True, slots=True)
class PreparedTurn:
    """One turn, prepared: what every later step (reserve, run, conclude) reads."""

    run_id: str
    session_key: str
    agent_id: str
    message: str
    opts: TurnOptions
    #: `time.perf_counter()` when the turn started
    started: float
    #: the session as the turn found it under its lease (None: this turn creates it)
    record: SessionRecord | None
    #: the model fallback chain: the turn's model, then the configured fallbacks
    candidates: tuple[ModelRef, ...]
    #: the pin this session carried into the turn (not one this turn just created)
    pinned: str | None
    #: a runtime chosen for the session before its first turn (a fork's --runtime)
    override: str | None
    #: the directory the turn's tools work in
    workspace: str
    abort: asyncio.Event
    #: the turn's time limit in seconds, and its deadline on the event loop's clock
    timeout: float | None
    deadline: float | None
    #: the session writer lease the turn holds; its transcript writes carry it
    fence: SessionLease | None
    recorder: TurnRecorder
    #: the turn's budgets: reserved before its attempt is dispatched, settled after it
    spend: TurnSpend

    @property
    def caller_turn(self) -> bool:
        """The caller runs some of this turn's tools (or sends their results)."""
        return bool(self.opts.caller_tools or self.opts.caller_results)


#: makes a `PreparedTurn` as the class does, in a third of the instructions (one a turn;
#: `clawharness._frozen`)
_make_prepared = quick_maker(PreparedTurn)


def check_workspace(path: str) -> None:
    """A turn's own workspace must be an absolute path to a directory that exists."""
    if not os.path.isabs(path):
        raise WorkspaceInvalidError(f"the turn's workspace {path!r} is not an absolute path")
    if not os.path.isdir(path):
        raise WorkspaceInvalidError(f"the turn's workspace {path} is not an existing directory")


class TurnPreparer:
    """Prepares the turns of one host: model resolution and agent workspaces."""

    def __init__(self, context: TurnContext, store: SessionStore) -> None:
        self._context = context
        self._store = store
        self._workspaces: dict[str, str] = {}
        #: model refs parsed, by their text, while the config and the plugins' providers
        #: they were parsed against stay the same objects (`_ref_basis`)
        self._refs: dict[str, ModelRef] = {}
        self._ref_basis: tuple[object, object] | None = None

    async def prepare(self, *, run_id: str, session_key: str, agent_id: str, message: str,
                      opts: TurnOptions, started: float, fence: SessionLease | None,
                      spend: TurnSpend) -> PreparedTurn:
        """The turn, prepared under the session's writer lease (`fence`)."""
        # read under the lease: the complete transcript, whoever wrote it (the store may
        # have read the row in the lease's own transaction already)
        known = fence.session_row if fence is not None else None
        record = known[0] if known is not None else await self._store.get_session(session_key)
        primary = self._model_ref(agent_id, opts.model, record)
        chain = self._candidates(agent_id, primary, opts, record)
        timeout = opts.timeout or self._context.config.agents.defaults.timeout_seconds
        return _make_prepared(
            run_id=run_id, session_key=session_key, agent_id=agent_id, message=message,
            opts=opts, started=started, record=record, candidates=tuple(chain),
            pinned=record.agent_harness_id if record else None,
            override=record.meta.agent_harness_runtime_override if record else None,
            workspace=opts.workspace or self.workspace(agent_id),
            abort=opts.abort or asyncio.Event(), timeout=timeout,
            deadline=asyncio.get_running_loop().time() + timeout if timeout else None,
            fence=fence, recorder=TurnRecorder(run_id, session_key, fence), spend=spend)

    # resolution ----------------------------------------------------------------------

    def _model_ref(self, agent_id: str, override: str | None, record: SessionRecord | None) -> ModelRef:
        config = self._context.config
        text = override
        if text is None and record is not None and record.model_ref:
            text = record.model_ref
        if text is None:
            entry = config.agents.entries.get(agent_id)
            if entry is not None and entry.model is not None and entry.model.primary:
                text = entry.model.primary
        if text is None and config.agents.defaults.model is not None:
            text = config.agents.defaults.model.primary
        if not text:
            raise ConfigError("no model configured: set agents.defaults.model or pass --model",
                              key_path="agents.defaults.model")
        return self._parse_ref(text)

    def _parse_ref(self, text: str) -> ModelRef:
        """`text` parsed against the configured and the plugins' providers (a pure
        function of the three: parsed once while config and providers stay the same)."""
        config = self._context.config
        providers = self._context.harnesses.providers
        basis = self._ref_basis
        if basis is None or basis[0] is not config or basis[1] is not providers:
            self._refs.clear()
            self._ref_basis = (config, providers)
        ref = self._refs.get(text)
        if ref is not None:
            return ref
        models_by_provider = {p: [m.id for m in cfg.models]
                              for p, cfg in config.models.providers.items()}
        ref = parse_model_ref(
            text,
            known_providers=known_provider_ids(config, providers),
            models_by_provider=models_by_provider,
        )
        if len(self._refs) >= _MAX_REFS:
            self._refs.clear()
        self._refs[text] = ref
        return ref

    def workspace(self, agent_id: str) -> str:
        """The agent's workspace directory, made on first use (and again if removed)."""
        text = self._workspaces.get(agent_id)
        if text is None:
            config = self._context.config
            entry = config.agents.entries.get(agent_id)
            raw = (entry.workspace if entry else None) or config.agents.defaults.workspace
            path = Path(raw).expanduser() if raw else self._context.state_dir / "workspace" / agent_id
            text = self._workspaces[agent_id] = str(path)
        if not os.path.isdir(text):  # made on first use, and again if someone removed it
            Path(text).mkdir(parents=True, exist_ok=True)
        return text

    def _candidates(self, agent_id: str, primary: ModelRef, opts: TurnOptions,
                    record: SessionRecord | None) -> list[ModelRef]:
        """The model fallback chain: the turn's model, then the configured fallbacks
        (none when the caller named the model or the session carries its own)."""
        if opts.model is not None or (record is not None and record.model_ref
                                      and record.model_ref != self._configured_primary(agent_id)):
            return [primary]
        config = self._context.config
        entry = config.agents.entries.get(agent_id)
        setting = entry.model if entry is not None and entry.model is not None else (
            config.agents.defaults.model)
        chain = [primary]
        for text in (setting.fallbacks if setting is not None else []):
            try:
                ref = self._parse_ref(text)
            except ClawHarnessError as exc:
                log.warning("model fallback %r skipped: %s", text, exc)
                continue
            if ref not in chain:
                chain.append(ref)
        return chain

    def _configured_primary(self, agent_id: str) -> str | None:
        config = self._context.config
        entry = config.agents.entries.get(agent_id)
        setting = entry.model if entry is not None and entry.model is not None else (
            config.agents.defaults.model)
        return setting.primary if setting is not None else None
