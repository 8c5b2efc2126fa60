"""What the host says about itself: the effective runtime per agent and session
(`status`), where a command would run (`explain_sandbox`), the model catalog, the
sessions' runtime pins, the cluster's state. `Host` has these methods
(`HostReportsMixin`); what they read of the host is `_HostParts`."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from clawharness._host_parts import HostCore
from clawharness.errors import ConfigError, InvalidSessionKeyError
from clawharness.sessions.agents import known_agent_ids, require_known_agent
from clawharness.sessions.keys import parse_session_key

# the parts the reports use are imported by the report that runs (a host that only
# reads its store imports none of them)
if TYPE_CHECKING:
    from clawharness.cluster.status import ClusterStatus
    from clawharness.cluster.transport import ClusterTransport
    from clawharness.harness.status import SessionPin, StatusReport
    from clawharness.models.catalog import ModelCatalog
    from clawharness.records.turn_result import TurnResult
    from clawharness.tools.sandbox import SandboxExplanation, SandboxService

__all__ = ["HostReportsMixin"]


class _HostParts(HostCore, Protocol):
    """What the report methods read of their host."""

    @property
    def sandbox(self) -> SandboxService: ...
    @property
    def state_dir(self) -> Path: ...
    def session_key(self, key: str | None) -> str: ...
    def default_agent_id(self) -> str: ...
    def cluster_transport(self) -> ClusterTransport: ...
    def _config_warnings(self) -> tuple[str, ...]: ...
    async def status(self, session_key: str | None = None, *,
                     model: str | None = None) -> StatusReport: ...


class HostReportsMixin:
    """Status, sandbox, catalog and cluster reports (the methods of `Host`)."""

    async def cluster_status(self: _HostParts, url: str | None = None) -> ClusterStatus:
        """How the cluster at `url` (else this host's `cluster.url`) is: reachable, its
        server's version, the workers polling its task queue. Needs no started host."""
        target = url or self.config.cluster.url
        if target is None:
            raise ConfigError("no cluster to ask about: pass --cluster temporal://HOST:PORT "
                              "or set cluster.url", key_path="cluster.url")
        from clawharness.cluster.front import probe_cluster

        return await probe_cluster(target, self.config.cluster, self.cluster_transport())

    async def explain_turn(self: _HostParts, result: TurnResult) -> str:
        """One line: why the turn ran where it did (`agent` prints it under the reply).

        A pinned session is explained from its status (what the config alone would
        select now); the turn is done, so a failure there only shortens the line."""
        from clawharness.errors import ClawHarnessError
        from clawharness.harness.explain import explain_selection

        if result.pinned_harness_id is not None:
            from clawharness.harness import explain_session

            try:
                report = await self.status(result.session_key)
            except ClawHarnessError:
                report = None
            why = explain_session(report.sessions[0]) if report and report.sessions else None
            if why is not None:
                return why
        return explain_selection(result.runtime, result.selected_reason,
                                 pinned=result.pinned_harness_id,
                                 session_key=result.session_key)

    async def status(self: _HostParts, session_key: str | None = None, *,
                     model: str | None = None) -> StatusReport:
        """The effective runtime per agent/model (and for one session, from its pin).

        `model`: the ref the session's next turn would name instead of its own (a chat's
        `/model`), so the session row shows what that turn would select.
        """
        from clawharness.harness.status import SessionPin, StatusReport, build_status
        from clawharness.models import unknown_provider_problems
        from clawharness.models.routes import known_provider_ids
        from clawharness.plugins.diagnostics import plugin_findings
        from clawharness.tools.sandbox.settings import sandboxed_agents

        pins: list[SessionPin] = []
        agents: list[str] | None = None
        if session_key:
            full = self.session_key(session_key)
            record = await self.store.get_session(full)
            pins.append(SessionPin(
                session_key=full, agent_id=record.agent_id if record else None,
                agent_harness_id=record.agent_harness_id if record else None,
                model_ref=model or (record.model_ref if record else None),
                thinking_level=record.meta.thinking_level if record else None,
            ))
            agents = [full.split(":", 2)[1]]
        plugin_providers = self.plugins.selector.providers
        report = build_status(self.config, self.plugins.registry, pins, env=self.env,
                              provider_routes=self.plugins.registrations.provider_routes(),
                              agents=agents,
                              known_providers=known_provider_ids(self.config, plugin_providers))
        problems = tuple(f.message for f in plugin_findings(self.plugins.load(),
                                                            self.config.plugins))
        problems += tuple(f"{p.key_path}: {p.message}; {p.hint}"
                          for p in unknown_provider_problems(self.config, plugin_providers))
        # where exec runs: said when no sandbox works here (or a required one cannot run);
        # only an agent whose sandbox is on needs its backends probed
        sandboxed = sandboxed_agents(self.config, agents or list(known_agent_ids(self.config)),
                                     state_dir=self.state_dir)
        sandbox: tuple[str, ...] = ()
        if sandboxed:
            from clawharness.tools.sandbox.explain import status_lines

            sandbox = tuple(await asyncio.to_thread(status_lines, self.sandbox, sandboxed))
        return StatusReport(report.agents, report.sessions, report.harnesses,
                            report.warnings + problems + sandbox + self._config_warnings())

    async def explain_sandbox(self: _HostParts, agent_id: str | None = None,
                              session_key: str | None = None) -> SandboxExplanation:
        """Where a command of an agent's session would run and what it would see
        (`clawharness sandbox explain`): the session's agent, else `agent_id`, else the
        default agent's main session. Needs no started host."""
        if session_key:
            key = self.session_key(session_key)
            owner = parse_session_key(key).agent_id
            if agent_id is not None and agent_id != owner:
                raise InvalidSessionKeyError(
                    f"the session key {key!r} belongs to agent {owner!r}, not {agent_id!r}: "
                    "pass one of --agent and --session, or a key of that agent")
            agent_id = owner
        else:
            agent_id = agent_id or self.default_agent_id()
            key = f"agent:{agent_id}:main"
        require_known_agent(self.config, agent_id, session_key=key if session_key else None)
        from clawharness.tools.sandbox import explain_sandbox

        return await asyncio.to_thread(explain_sandbox, self.sandbox, agent_id, key)

    async def model_catalog(self: _HostParts, agent_id: str | None = None) -> ModelCatalog:
        """The configured models as `agent_id` (else the default agent) sees them, each
        with its effective runtime (`clawharness models list`)."""
        from clawharness.models.catalog import build_model_catalog

        return build_model_catalog(
            self.config, self.plugins.registry, agent_id=agent_id or self.default_agent_id(),
            env=self.env, provider_routes=self.plugins.registrations.provider_routes(),
            extra_providers=tuple(self.plugins.selector.providers))

    async def session_pins(self: _HostParts) -> list[SessionPin]:
        """Every session's persisted runtime ownership (for doctor's stale-pin check)."""
        from clawharness.harness.status import SessionPin

        return [SessionPin(session_key=r.key, agent_id=r.agent_id,
                           agent_harness_id=r.agent_harness_id, model_ref=r.model_ref)
                for r in await self.store.list_sessions()]
