"""The `acp` harness: any Agent Client Protocol agent over stdio.

Model refs `acp/<name>` select it; `<name>` names a configured agent
(`plugins.entries.acp.config.agents.<name>.command` / `.env`). The wire is the `acp`
library's `ClientSideConnection` and pydantic types; this module only spawns the agent
(in its own process group, with an environment built from nothing: the library's
`spawn_agent_process` inherits part of the host environment and cannot start a new
process group) and implements the client side:

- `initialize` once per process; `session/new`, or `session/load` of the bound session
  id in a new process (its replayed history arrives before any turn is attached, so it is
  never mirrored twice). A session the agent says it does not have, or cannot load at
  all, is dropped through the SDK's `NativeSessionRecovery` with one warning and a new one
  made; a new session's first prompt gets the host transcript as a block before it;
- `session/prompt`, with `session/update` streamed into partial replies and the transcript
  (`tool_call` updates merged by id);
- the turn's usage: the token counts on the prompt's answer (`usage`), and its cost,
  what the session's cumulative cost (`usage_update`, in USD) grew by over the turn (the
  amount kept in the binding record, `cumulativeCostUsd`; docs/budgets.md);
- `session/request_permission` decided by the host's `run_before_tool_call`, the option
  chosen by its `kind`;
- `fs/read_text_file` / `fs/write_text_file` served from the workspace under the host's
  path rules;
- `session/cancel` for abort (then the tools' stray process groups are killed, and the
  whole tree if the agent does not stop), and shutdown by closing stdin, waiting,
  SIGTERM, SIGKILL.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from clawharness.harnesses.acp.common import (
    ACP_PROTOCOL_VERSION,
    HARNESS_ID,
    AcpAgentConfig,
    AcpHarnessError,
    canonical_tool_name,
    load_refused_as_gone,
    precheck_failure,
)
from clawharness.plugin_sdk.agent_harness import (
    AttemptParams,
    AttemptResult,
    SupportContext,
    Supported,
    SupportResult,
    Unsupported,
)
from clawharness.plugin_sdk.agent_harness_process import SupervisedProcesses
from clawharness.plugin_sdk.agent_harness_session_runtime import (
    AdoptRequest,
    HandoffRequest,
    NativeAdoption,
    NativeHandoff,
    NativeSessionRecord,
    NativeSessionUnsupportedError,
    SessionBindings,
    Store,
    native_session_bindings,
    resolve_state_dir,
)

if TYPE_CHECKING:
    from clawharness.harnesses.acp.wire import Live

__all__ = ["ACP_PROTOCOL_VERSION", "HARNESS_ID", "AcpAgentConfig", "AcpHarness", "AcpHarnessError",
           "canonical_tool_name", "load_refused_as_gone"]


class AcpHarness:
    """The `acp` harness: claims provider `acp`; `acp/<name>` runs the agent `<name>`."""

    id = HARNESS_ID
    label = "Agent Client Protocol"
    #: auto mode asks `supports` only for provider acp, the one it serves
    auto_selection: Mapping[str, tuple[str, ...]] = {"providerIds": ("acp",)}

    def __init__(self, *, state_dir: str | os.PathLike[str] | None = None,
                 config: Mapping[str, Any] | None = None, store: Store | None = None,
                 bindings: SessionBindings[NativeSessionRecord] | None = None) -> None:
        """`bindings`: the binding records (from `PluginApi.session_bindings`, which the
        host resets and deletes with each session); without them the harness keeps its
        own in `store` or under `state_dir`."""
        self._config: dict[str, Any] = dict(config or {})
        self.bindings = bindings if bindings is not None else native_session_bindings(
            HARNESS_ID, store=store, state_dir=Path(state_dir) if state_dir else None)
        self._processes: SupervisedProcesses[Live] = SupervisedProcesses(stop=self._stop_live)
        # a session the host reset, deleted or rewound resumes nothing: stop its agent
        self._processes.close_with(self.bindings)

    def supports(self, ctx: SupportContext) -> SupportResult:
        if ctx.provider != "acp":
            return Unsupported(reason="the acp harness serves only provider acp (acp/<agent>)")
        policy = ctx.model_provider.runtime_policy if ctx.model_provider is not None else None
        if policy is None or HARNESS_ID not in policy.compatible_ids:
            # the plugin's provider declares it; a route that does not is never permission
            return Unsupported(reason="the route of provider acp does not declare the acp "
                                      "runtime (its plugin's provider registration does)")
        if ctx.model_provider is not None and (
                ctx.model_provider.request_transport_overrides == "present"):
            # the agent makes its own requests: authored headers or parameters would be lost
            return Unsupported(reason="an ACP agent cannot reproduce authored request "
                                      "overrides")
        return Supported(priority=100, reason="provider acp is served by the acp harness")

    async def binding(self, agent_id: str, session_key: str) -> NativeSessionRecord | None:
        """The stored binding of a host session (None when there is none)."""
        return await self.bindings.read(agent_id, session_key)

    @property
    def processes(self) -> SupervisedProcesses[Live]:
        """The agents' processes, one per bound session."""
        return self._processes

    def live_pids(self) -> list[int]:
        return self._processes.pids()

    async def _stop_live(self, live: Live) -> None:
        conn, live.conn = live.conn, None
        grace = float(self._config.get("shutdownGraceSeconds", 2.0))
        await live.child.shutdown(grace=grace)
        if conn is not None:
            with contextlib.suppress(Exception):
                await conn.close()
        if live.lines is not None:
            await live.lines.aclose()

    async def dispose(self) -> None:
        await self._processes.close_all()
        await self.bindings.close()

    # --- state -----------------------------------------------------------------------------

    def native_state_dir(self, params: AttemptParams) -> Path:
        """Where agents keep their native state (HOME), migrated from `<workspace>/state`."""
        return self.native_state_dir_for(params.state_dir, params.workspace_dir,
                                         params.plugin_config)

    def native_state_dir_for(self, state_dir: str | os.PathLike[str] | None,
                             workspace_dir: str | os.PathLike[str],
                             plugin_config: Mapping[str, Any] | None = None) -> Path:
        """`native_state_dir` outside a turn (adopting a session for an agent)."""
        config = {**self._config, **dict(plugin_config or {})}
        host = Path(state_dir) if state_dir else Path.home() / ".clawharness"
        resolution = resolve_state_dir(
            explicit=config.get("stateDir"), old_default=Path(workspace_dir) / "state",
            new_default=host / "acp", label="acp")
        return resolution.path

    # --- portable sessions (docs/portable-sessions.md) -----------------------------------

    def _agent(self, name: str | None) -> AcpAgentConfig:
        agents = self._config.get("agents") or {}
        if not name or not isinstance(agents, Mapping) or name not in agents:
            known = ", ".join(sorted(agents)) if isinstance(agents, Mapping) else ""
            raise AcpHarnessError(
                f"no ACP agent named {name!r} is configured "
                f"(plugins.entries.acp.config.agents; known: {known or 'none'})")
        return AcpAgentConfig.parse(name, agents[name])

    async def adopt_native_session(self, request: AdoptRequest) -> NativeAdoption:
        """Replay an agent's session (`session/load`), ready to bind to a host session."""
        agent = self._agent(request.agent_name)
        # the `acp` library (its pydantic schema is slow to import) is loaded when used
        from clawharness.harnesses.acp.portable import adopt_acp_session

        timeout = float(self._config.get("loadTimeoutSeconds", 120.0))
        return await adopt_acp_session(self, request, agent, timeout=timeout)

    async def handoff_native_session(self, request: HandoffRequest) -> NativeHandoff:
        """Refused: ACP gives a client no way to make a session that holds a history."""
        agent = self._agent(request.agent_name)
        raise NativeSessionUnsupportedError(
            f"ACP agent {agent.name!r} cannot be handed a host session: the Agent Client "
            "Protocol has no request that makes a session holding a given history "
            "(session/new starts empty, session/load replays only what the agent itself "
            "stored)", hint=f"hand it to claude-code or codex, or go on with a turn on "
                            f"acp/{agent.name} there: a new ACP session's first prompt "
                            "carries the host transcript")

    # --- the attempt -----------------------------------------------------------------------

    async def run_attempt(self, params: AttemptParams) -> AttemptResult:
        config = {**self._config, **dict(params.plugin_config or {})}
        agents = config.get("agents") or {}
        name = params.model_id
        try:
            if not isinstance(agents, Mapping) or name not in agents:
                known = ", ".join(sorted(agents)) if isinstance(agents, Mapping) else ""
                raise AcpHarnessError(
                    f"no ACP agent named {name!r} is configured "
                    f"(plugins.entries.acp.config.agents; known: {known or 'none'})")
            agent = AcpAgentConfig.parse(name, agents[name])
            fallback = (Path(params.state_dir) / "plugins" / HARNESS_ID
                        if params.state_dir else None)
            await self.bindings.lifecycle(fallback)
        except Exception as exc:
            return await precheck_failure(params, str(exc))
        # the `acp` library (its pydantic schema is slow to import) is loaded by a turn
        from clawharness.harnesses.acp.wire import AcpTurn

        key = self.bindings.row_key(params.agent_id, params.session_key)
        turn = AcpTurn(self, params, key, agent, float(config.get("cancelGraceSeconds", 5.0)))
        try:
            return await self.bindings.with_turn(params, turn.run)
        except Exception as exc:
            if turn.started:
                raise
            return await precheck_failure(params, f"{type(exc).__name__}: {exc}")
