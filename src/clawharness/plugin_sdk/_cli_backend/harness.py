"""`CliBackendHarness`: the harness for one described CLI agent."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from clawharness.plugin_sdk._cli_backend.live import LiveProcess, precheck_failure
from clawharness.plugin_sdk._cli_backend.spec import (
    CliAgentSpec,
    CliBackendError,
    config_env,
    config_number,
    resolve_command,
)
from clawharness.plugin_sdk._cli_backend.turn import CliTurn
from clawharness.plugin_sdk.agent_harness import (
    AttemptParams,
    AttemptResult,
    SupportContext,
    Supported,
    SupportResult,
    Unsupported,
)
from clawharness.plugin_sdk.agent_harness_process import (
    SupervisedProcesses,
)
from clawharness.plugin_sdk.agent_harness_runtime import HarnessError
from clawharness.plugin_sdk.agent_harness_session_runtime import (
    NativeSessionRecord,
    SessionBindings,
    Store,
    native_session_bindings,
)

__all__ = ["CliBackendHarness"]


class CliBackendHarness:
    """The harness for one described CLI agent."""

    #: explicit-only (`supports` claims a route only when its runtime names this
    #: harness): auto mode passes it over without asking
    auto_selection: Mapping[str, tuple[str, ...]] = {"providerIds": ()}

    def __init__(self, spec: CliAgentSpec, *, state_dir: str | os.PathLike[str] | None = None,
                 config: Mapping[str, Any] | None = None, store: Store | None = None,
                 bindings: SessionBindings[NativeSessionRecord] | None = None) -> None:
        """`bindings`: the binding records (from `PluginApi.session_bindings`, which the
        host resets and deletes with each session); without them the harness keeps its
        own in `store` or under `state_dir`."""
        self.spec = spec
        self.id = spec.id
        self.label = spec.label
        if spec.auth_bootstrap is not None:
            self.auth_bootstrap = spec.auth_bootstrap
        self._config: dict[str, Any] = dict(config or {})
        self.bindings = bindings if bindings is not None else native_session_bindings(
            spec.id, store=store, state_dir=Path(state_dir) if state_dir is not None else None)
        self._processes: SupervisedProcesses[LiveProcess] = SupervisedProcesses(grace=2.0)
        # a session the host reset, deleted or rewound resumes nothing: stop its process
        self._processes.close_with(self.bindings)
        self._request_seq = 0

    # --- selection ---------------------------------------------------------------------

    def supports(self, ctx: SupportContext) -> SupportResult:
        """Supported only when explicitly requested for a provider it serves."""
        if ctx.requested_runtime != self.id:
            return Unsupported(reason=f"{self.id} runs only when selected explicitly "
                                      f'(agentRuntime.id: "{self.id}")')
        if self.spec.providers and ctx.provider not in self.spec.providers:
            return Unsupported(reason=f"{self.id} serves provider(s) "
                                      f"{', '.join(self.spec.providers)}, not {ctx.provider}")
        facts = ctx.model_provider
        if facts is not None and facts.request_transport_overrides == "present":
            # the CLI makes its own requests: authored headers or parameters would be lost
            return Unsupported(reason=f"{self.id} cannot reproduce authored request overrides")
        return Supported(priority=100, reason=f"explicitly selected {self.id}")

    async def binding(self, agent_id: str, session_key: str) -> NativeSessionRecord | None:
        """The stored binding of a host session (None when there is none)."""
        return await self.bindings.read(agent_id, session_key)

    # --- process ownership ---------------------------------------------------------------

    @property
    def processes(self) -> SupervisedProcesses[LiveProcess]:
        """The processes this harness keeps, one per bound session."""
        return self._processes

    def live_pids(self) -> list[int]:
        """Pids of the processes this harness keeps (for diagnostics and tests)."""
        return self._processes.pids()

    async def dispose(self) -> None:
        """Shut every process down and close the binding store."""
        await self._processes.close_all()
        await self.bindings.close()

    def next_request_id(self, prefix: str) -> str:
        self._request_seq += 1
        return f"{prefix}_{self._request_seq}"

    # --- the attempt ----------------------------------------------------------------------

    async def run_attempt(self, params: AttemptParams) -> AttemptResult:
        """Run one turn on the binding's process (spawned or resumed as needed)."""
        config = {**self._config, **dict(params.plugin_config or {})}
        try:
            command = resolve_command(config.get("command"), self.spec.default_command)
            env_extra = config_env(config.get("env"))
            grace = config_number(config, "interruptGraceSeconds", 5.0)
            idle = config_number(config, "idleTimeoutSeconds", 300.0)
        except CliBackendError as exc:
            return await precheck_failure(self.spec, params, str(exc))
        host_state = Path(params.state_dir) if params.state_dir else None
        fallback = host_state / "plugins" / self.id if host_state else None
        try:
            await self.bindings.lifecycle(fallback)
        except Exception as exc:
            return await precheck_failure(self.spec, params, f"binding store: {exc}")
        key = self.bindings.row_key(params.agent_id, params.session_key)
        turn = CliTurn(self, params, key, command, env_extra, grace, idle, config)
        try:
            return await self.bindings.with_turn(params, turn.run)
        except HarnessError as exc:
            return await precheck_failure(self.spec, params, str(exc))
        except Exception as exc:
            if turn.started:
                raise
            return await precheck_failure(self.spec, params, f"{type(exc).__name__}: {exc}")

    def agent_dir(self, params: AttemptParams) -> Path:
        """Per-agent runtime state (HOME, config dir) under the host state dir."""
        return self.agent_dir_for(params.state_dir, params.agent_id)

    def agent_dir_for(self, state_dir: str | os.PathLike[str] | None, agent_id: str) -> Path:
        """`agent_dir` of an agent outside a turn (adopting a session for it)."""
        base = Path(state_dir) if state_dir else (
            self.bindings.state_dir or Path.home() / ".clawharness" / "plugins" / self.id)
        safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in agent_id)
        return base / self.id / "agents" / (safe or "default")
