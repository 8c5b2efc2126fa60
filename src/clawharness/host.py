"""`Host`: the one door to the core for the CLI, the gateway, workers and library users.

    async with Host.from_config("config.json5") as host:
        result = await host.run_turn("agent:main:main", "hello")

The host owns sessions, transcripts, models, auth, tool policy and delivery; it hands
each prepared turn to the selected harness (see `clawharness.attempt.turn`). Where its
turns run is its executor, chosen when it is made: here (`LocalTurnExecutor`, the turn
runner) or, with a cluster URL, on the cluster's workers (`clawharness.cluster.front`).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Mapping, Sequence
from functools import cached_property
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any

from clawharness._faces import lazy_face
from clawharness._gc import GcTuning
from clawharness._host_sessions import HostSessionsMixin
from clawharness.config.held_secrets import held_secret_values
from clawharness.config.loader import LoadedConfig, load_config
from clawharness.errors import (
    ClawHarnessError,
    ModelRefError,
)
from clawharness.host_portable import PortableSessionsMixin
from clawharness.host_reports import HostReportsMixin
from clawharness.names import parse_model_ref
from clawharness.observability import Telemetry, resolve_settings
from clawharness.observability.telemetry import reset_telemetry, use_telemetry
from clawharness.redaction.known import register_known_secrets, unregister_known_secrets
from clawharness.sessions.agents import (
    configured_default_agent,
    known_agent_ids,
)
from clawharness.sessions.keys import normalize_session_key
from clawharness.sessions.writers import SessionWriters, WriterTimings
from clawharness.store import (
    Amount,
    BudgetState,
    SpendGrouping,
    SpendSummary,
    Store,
    open_store,
)

if TYPE_CHECKING:
    from clawharness.attempt.agent_setup import AgentSetup
    from clawharness.attempt.delegation import DelegateRequest
    from clawharness.attempt.executor import TurnExecutor
    from clawharness.attempt.turn import TurnOptions, TurnRunner
    from clawharness.cluster.transport import ClusterTransport
    from clawharness.llm import LlmApi
    from clawharness.mcp.manager import McpManager
    from clawharness.plugins.runtime import PluginRuntime
    from clawharness.records.turn_result import TurnResult
    from clawharness.sessions.lifecycle import SessionLifecycle
    from clawharness.subagents import SubagentManager
    from clawharness.tools.agent_tools import AgentTools
    from clawharness.tools.sandbox import SandboxService

__all__ = ["Host", "TurnResult"]

# a turn's result is read from here by name; its module loads when a turn first needs it
__getattr__, __dir__ = lazy_face(__name__, {"TurnResult": "clawharness.records.turn_result"})


class Host(PortableSessionsMixin, HostReportsMixin, HostSessionsMixin):
    """A configured host: config, store, plugins and harnesses, session writers.

    With a cluster (`cluster_url`, else `cluster.url` in config) the host is a front: its
    turns go to the cluster's workers and their events stream back (see
    docs/scale-out.md). `in_process=True` (a worker's own host) runs turns here whatever
    the config says.
    """

    def __init__(self, loaded: LoadedConfig, *, store_url: str | None = None,
                 env: Mapping[str, str] | None = None,
                 telemetry: Telemetry | None = None, serving: bool = False,
                 cluster_url: str | None = None, in_process: bool = False) -> None:
        """`telemetry`: instead of the one `diagnostics.*` and `OTEL_*` describe (a test's
        or a bench's, e.g. with its own span processor); the host shuts it down.
        `serving`: a server front (the gateway) runs this host, so metrics are recorded
        unless `diagnostics.metrics.enabled` says no."""
        self.loaded = loaded
        self.config = loaded.config
        self.env: Mapping[str, str] = dict(os.environ if env is None else env)
        self.state_dir = loaded.state_dir
        self._store_url = store_url or self.config.store.url or str(self.state_dir / "clawharness.db")
        self._store: Store | None = None
        self.cluster_url = None if in_process else (cluster_url or self.config.cluster.url)
        #: where turns run, chosen now and opened in `start`: here, or on the cluster
        self._open_executor = (self._local_executor if self.cluster_url is None
                               else self._cluster_executor)
        self._executor: TurnExecutor | None = None
        sessions = self.config.sessions
        self.writers = SessionWriters(timings=WriterTimings(
            wait=sessions.writer_wait_seconds, ttl=sessions.writer_lease_seconds))
        #: the plugin runtime (`plugins`), made when first asked for
        self._plugins: PluginRuntime | None = None
        self._lifecycle: SessionLifecycle | None = None
        self._holds_gc = False
        #: the registration of this host's secret values with the redactor (`start`)
        self._secrets: int | None = None
        self._mcp: McpManager | None = None
        self._given_telemetry = telemetry
        self._serving = serving
        #: traces and metrics (docs/observability.md): made in `start`, stopped in `close`
        self.telemetry = Telemetry.off()

    # the parts, each made when first used: a host that only reads its store (as
    # `clawharness sessions list` does) neither imports nor builds them -------------------

    @property
    def plugins(self) -> PluginRuntime:
        """The bundled and configured plugins and the built-in harness beside them; once
        the host is started, loaded (at the first use, lending them the store)."""
        runtime = self._plugins
        if runtime is None:
            from clawharness.harnesses.embedded.harness import OpenClawHarness
            from clawharness.plugins.runtime import PluginRuntime

            runtime = self._plugins = PluginRuntime(
                self.config, state_dir=self.state_dir, env=self.env,
                builtin=OpenClawHarness())
        if runtime.load_result is None and self._store is not None:
            runtime.load(self._store)
        return runtime

    @cached_property
    def agent_tools(self) -> AgentTools:
        """The agents' tool policy and host tools, over the host's `sandbox`."""
        from clawharness.tools.agent_tools import AgentTools

        return AgentTools(self.config, self.sandbox)

    @cached_property
    def sandbox(self) -> SandboxService:
        """Where exec runs (agents.*.sandbox), never showing the store or the config
        file; what `status` reads of the tools (it imports no tool policy)."""
        from clawharness.tools.sandbox import SandboxService

        return SandboxService(self.config, state_dir=self.state_dir,
                              store_url=self._store_url, config_path=self.loaded.path)

    @cached_property
    def agent_setup(self) -> AgentSetup:
        """The agents' system prompts, runtime plans and plugin config."""
        from clawharness.attempt.agent_setup import AgentSetup

        return AgentSetup(self.config)

    @cached_property
    def llm(self) -> LlmApi:
        """One prompt-only completion: `await host.llm.complete(prompt, execution=...)`."""
        from clawharness.llm import LlmApi, LlmContext

        plugins = self.plugins
        return LlmApi(LlmContext(config=self.config, harnesses=plugins.selector,
                                 builtin=plugins.builtin, env=self.env,
                                 default_agent_id=self.default_agent_id, start=self.start))

    @cached_property
    def subagents(self) -> SubagentManager:
        """The child sessions `sessions_spawn` starts: list, kill, wait."""
        from clawharness.subagents import SubagentManager

        return SubagentManager(
            self, policy=self.agent_tools.tool_policy,
            tool_names=lambda agent: tuple(s.name for s in self.agent_tools.tool_specs(agent)))

    # construction -------------------------------------------------------------------

    @classmethod
    def from_config(cls, path: str | os.PathLike[str] | None = None, *,
                    env: Mapping[str, str] | None = None, store_url: str | None = None,
                    telemetry: Telemetry | None = None, serving: bool = False,
                    cluster_url: str | None = None, in_process: bool = False) -> Host:
        """Load config from `path` (or the usual locations) and build a host (not started)."""
        return cls(load_config(path, env=env), store_url=store_url, env=env,
                   telemetry=telemetry, serving=serving, cluster_url=cluster_url,
                   in_process=in_process)

    @property
    def store_url(self) -> str:
        return self._store_url

    async def start(self) -> Host:
        if self._secrets is None:
            # masked wherever they would leave the host, logs and traces included
            self._secrets = register_known_secrets(held_secret_values(self.loaded.raw,
                                                                      self.env))
        if self._store is None:
            self._start_telemetry()
            if "://" not in self._store_url:
                Path(self._store_url).parent.mkdir(parents=True, exist_ok=True)
            store = open_store(self._store_url)
            await store.open()
            self._store = store
            self.writers.attach(store)
            self._executor = await self._open_executor(store)
            if self.config.host.tune_gc and not self._holds_gc:
                GcTuning.acquire()
                self._holds_gc = True
        return self

    async def _local_executor(self, store: Store) -> TurnExecutor:
        """Turns run here, by the turn runner (imported and made at the first turn: a
        host that runs none, as `clawharness sessions list` does, never loads it)."""
        from clawharness.attempt.executor import LocalTurnExecutor

        def make_runner() -> TurnRunner:
            from clawharness.attempt.turn import TurnContext, TurnRunner

            return TurnRunner(TurnContext(
                config=self.config, harnesses=self.plugins.selector, tools=self.agent_tools,
                agents=self.agent_setup, hooks=self.plugins.hooks, writers=self.writers,
                env=self.env, state_dir=self.state_dir,
                mcp=self.mcp if self.config.mcp.servers else None,
                host_tools=(self.subagents.tool(),)), store)
        return LocalTurnExecutor(make_runner)

    async def _cluster_executor(self, _store: Store) -> TurnExecutor:
        """Turns run on the cluster's workers: the shared store and the URL are checked
        now, the cluster is reached at the first turn (an unreachable one fails that
        turn, naming the URL)."""
        from clawharness.cluster.front import open_cluster_turns

        assert self.cluster_url is not None
        return await open_cluster_turns(
            self.cluster_url, self.config, store_url=self._store_url,
            transport=self.cluster_transport(),
            queue_wait_seconds=self.config.sessions.writer_wait_seconds)

    @property
    def executor(self) -> TurnExecutor:
        """Where this host's turns run (`LocalTurnExecutor`, or the cluster's)."""
        if self._executor is None:
            raise ClawHarnessError("host is not started: use `async with host` or `await host.start()`")
        return self._executor

    def cluster_transport(self) -> ClusterTransport:
        """How this host reaches the cluster (`cluster.tls`, `cluster.apiKey`), its
        certificates read now; `ConfigError` naming the key when one cannot be."""
        from clawharness.cluster.front import cluster_transport

        base_dir = self.loaded.path.parent if self.loaded.path is not None else Path.cwd()
        return cluster_transport(self.config.cluster, env=self.env, base_dir=base_dir)

    async def close(self) -> None:
        if "subagents" in self.__dict__:  # made by a first use
            await self.subagents.close()
        if self._executor is not None:
            await self._executor.close()
            self._executor = None
        if self._mcp is not None:
            await self._mcp.close()
            self._mcp = None
        await self.writers.close()
        if self._plugins is not None:
            await self._plugins.dispose()
        self._lifecycle = None
        if self._store is not None:
            await self._store.close()
            self._store = None
        if self._holds_gc:
            GcTuning.release()
            self._holds_gc = False
        self.telemetry.shutdown()
        self.telemetry = Telemetry.off()
        if self._secrets is not None:
            unregister_known_secrets(self._secrets)
            self._secrets = None

    def _start_telemetry(self) -> None:
        given, self._given_telemetry = self._given_telemetry, None
        telemetry = given or Telemetry(resolve_settings(self.config.diagnostics, self.env,
                                                        serving=self._serving))
        telemetry.gauge_source("queue_depth", self.writers.queue_depths)
        from clawharness.observability.processes import live_native_processes

        telemetry.gauge_source("native_processes", live_native_processes)
        self.telemetry = telemetry

    async def __aenter__(self) -> Host:
        return await self.start()

    async def __aexit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                        tb: TracebackType | None) -> None:
        await self.close()

    @property
    def mcp(self) -> McpManager:
        """The configured MCP servers (`mcp.servers`): sessions start on first use and
        close with the host."""
        if self._mcp is None:
            from clawharness.mcp.manager import McpManager

            self._mcp = McpManager(self.config.mcp, self.env)
        return self._mcp

    @property
    def store(self) -> Store:
        if self._store is None:
            raise ClawHarnessError("host is not started: use `async with host` or `await host.start()`")
        return self._store

    # turns ----------------------------------------------------------------------------

    def session_key(self, key: str | None) -> str:
        """A full session key from a key, a bare name, or None (the default agent's main)."""
        agent = self.default_agent_id()
        return normalize_session_key(key or "main", default_agent=agent)

    def agent_ids(self) -> tuple[str, ...]:
        """Every agent this config defines: the default agent first, then the entries."""
        return known_agent_ids(self.config)

    def default_agent_id(self) -> str:
        return configured_default_agent(self.config)

    def agent_workspace(self, agent_id: str) -> str:
        """The directory an agent's turns work in (its configured `workspace`, else
        `<state dir>/workspace/<agent>`), unless a turn brings its own."""
        from clawharness.tools import agent_workspace_dir

        return str(agent_workspace_dir(self.config, self.state_dir, agent_id))

    def model_ref(self, text: str) -> str:
        """`text` as the `provider/model` ref a turn would run (a bare model id is looked up
        among the configured providers' models); `ModelRefError` when a turn could not."""
        from clawharness.models.routes import known_provider_ids

        providers = self.config.models.providers
        return str(parse_model_ref(
            text, known_providers=known_provider_ids(self.config, self.plugins.selector.providers),
            models_by_provider={pid: [m.id for m in p.models] for pid, p in providers.items()},
        ))

    def context_window(self, model_ref: str) -> int | None:
        """The context window configured for the `provider/model` ref (its model row's
        `contextWindow`), None when none is."""
        return self.config.models.context_window(model_ref)

    async def run_turn(self, session_key: str | None, message: str,
                       options: TurnOptions | None = None, **kwargs: Any) -> TurnResult:
        """Run one agent turn on a session (created on first use), through this host's
        executor: here, or on the cluster when this host is a front."""
        if self._executor is None:
            await self.start()
        assert self._executor is not None
        opts = options if options is not None else _turn_options(**kwargs)
        token = use_telemetry(self.telemetry)
        try:
            return await self._executor.run_turn(self.session_key(session_key), message, opts)
        finally:
            reset_telemetry(token)

    def metrics_text(self) -> bytes:
        """The host's metrics as Prometheus text (the gateway's `/metrics`)."""
        return self.telemetry.prometheus_text()

    # spend ----------------------------------------------------------------------------

    async def usage(self, *, by: SpendGrouping = "day", since: float = 0.0,
                    session_key: str | None = None) -> list[SpendSummary]:
        """Spend of the turns run on this store (every process) from `since` (epoch
        seconds), summed per `by` (`clawharness usage`; docs/budgets.md); with
        `session_key` (a session key, normalized), that session's turns only."""
        key = None if session_key is None else self.session_key(session_key)
        return await self.store.summarize_spend(since=since, by=by, session_key=key)

    async def budget_states(self, keys: Sequence[str]) -> list[BudgetState]:
        """The ledger's counters of these budget keys (zero for one never used)."""
        return await self.store.budget_states(keys)

    async def extend_budget(self, key: str, amount: Amount) -> BudgetState:
        """Raise one budget by `amount` (an operator's grant); its new state."""
        return await self.store.grant_budget(key, amount)

    # sessions: HostSessionsMixin (_host_sessions.py) ----------------------------------

    # servers' preloading, config warnings, delegated turns ----------------------------

    def preload_model_transports(self) -> tuple[str, ...]:
        """Import the model transports (and SDKs) of the providers this config names, and
        of each agent's models: a server that runs turns (`serve`, `worker`) calls it at
        start, so its first turn does not wait on an import; the turn runner too, when
        the host is started and its turns run here. Returns the modules."""
        from clawharness.attempt.executor import LocalTurnExecutor
        from clawharness.providers.registry import default_api, preload_transports

        if isinstance(self._executor, LocalTurnExecutor):
            _ = self._executor.runner
        providers = self.config.models.providers
        names = set(providers)
        agents = self.config.agents
        settings = [agents.defaults.model, *(a.model for a in agents.entries.values())]
        for setting in settings:
            for ref in () if setting is None else (setting.primary, *setting.fallbacks):
                if ref and "/" in ref:  # a bare alias resolves through the providers above
                    with contextlib.suppress(ModelRefError):  # reported where it is used
                        names.add(parse_model_ref(ref).repaired().provider)
        apis = {(providers[n].api if n in providers else None) or default_api(n)
                for n in names}
        return preload_transports(apis)

    def _config_warnings(self) -> tuple[str, ...]:
        """The config's warnings, less what a running gateway disproves: a host that serves
        started its gateway, so it had a token (from --token or the environment) even
        when the config names none."""
        texts, problems = self.loaded.warnings, self.loaded.problems
        if not self._serving or len(texts) != len(problems):
            return tuple(texts)
        return tuple(text for text, problem in zip(texts, problems, strict=True)
                     if problem.code != "gateway-token-missing")

    async def run_delegated_turn(self, plugin_id: str, request: DelegateRequest, message: str,
                                 options: TurnOptions | None = None) -> TurnResult:
        """Run a turn for a delegate plugin on a harness owner's model-locked session.

        The owner's `delegated_execution_plugin_ids` must name the plugin, and the request
        must present the exact stored session identity; anything else raises
        `DelegationRefusedError` before any work. Only admission and execution are
        delegated: create, patch, reset, delete and archive stay with the owner.
        """
        from clawharness.attempt.delegation import StoredSession, check_delegate

        record = await self.store.get_session(self.session_key(request.session_key))
        harness = None
        if record is not None and record.agent_harness_id:
            registered = self.plugins.registry.get(record.agent_harness_id)
            harness = registered.harness if registered is not None else None
        stored = None if record is None else StoredSession(
            session_key=record.key, store_path=self.store.url, session_id=record.session_id,
            model_selection_locked=record.meta.model_selection_locked,
            agent_harness_id=record.agent_harness_id,
            agent_harness_runtime_override=record.meta.agent_harness_runtime_override)
        check_delegate(harness, plugin_id, request, stored)
        assert record is not None
        return await self.run_turn(record.key, message, options)


#: `TurnOptions`, imported at the first turn that needs it (a host that runs no turn never
#: loads the turn runner), then kept: an import statement per turn costs microseconds
_TURN_OPTIONS: type[TurnOptions] | None = None


def _turn_options(**kwargs: Any) -> TurnOptions:
    global _TURN_OPTIONS
    if _TURN_OPTIONS is None:
        from clawharness.attempt.turn import TurnOptions

        _TURN_OPTIONS = TurnOptions
    return _TURN_OPTIONS(**kwargs)
