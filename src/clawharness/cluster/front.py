"""The cluster as a host's turn executor: a front's turns run on the cluster's workers.

`Host` chooses its executor when it is made: with a cluster URL, `open_cluster_turns`
gives it a `ClusterTurnExecutor` when it starts (the shared store checked, the turn event
relay open; the cluster itself is reached at the first turn, and an unreachable one fails
that turn, naming the URL). Also here: how a member reaches the cluster
(`cluster_transport`) and how the cluster is (`probe_cluster`).

Importing this module imports neither Temporal nor the PostgreSQL driver (they come with
the `cluster` extra): what needs them is imported when a front starts or asks.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from clawharness.cluster.members import check_shared_store, new_worker_id
from clawharness.config.schema import ClawConfig, ClusterConfig
from clawharness.errors import ClawHarnessError, ClientToolsUnsupportedError
from clawharness.records import TurnResult
from clawharness.sessions.agents import require_known_agent
from clawharness.sessions.keys import parse_session_key
from clawharness.sessions.queue import parse_queue_mode, resolve_queue_mode

if TYPE_CHECKING:
    from clawharness.attempt.turn import TurnOptions
    from clawharness.cluster.client import ClusterClient
    from clawharness.cluster.events import TurnEventRelay
    from clawharness.cluster.status import ClusterStatus
    from clawharness.cluster.transport import ClusterTransport

__all__ = ["ClusterTurnExecutor", "cluster_transport", "open_cluster_turns", "probe_cluster"]


class ClusterTurnExecutor:
    """A front's turns, submitted to the cluster; their events stream back through the
    relay. A session key naming an agent the config does not define is refused here,
    before the cluster is asked (its worker would refuse it again)."""

    def __init__(self, config: ClawConfig, client: ClusterClient,
                 relay: TurnEventRelay) -> None:
        self._config = config
        self.client = client
        self.relay = relay

    async def run_turn(self, session_key: str, message: str,
                       options: TurnOptions) -> TurnResult:
        agent_id = parse_session_key(session_key).agent_id
        require_known_agent(self._config, agent_id, session_key=session_key)
        if options.workspace or options.tool_backends or options.tool_restriction:
            # a worker elsewhere cannot reach a front's editor, nor its directory
            raise ClawHarnessError(
                "a turn with its own workspace, tool backends or tool restriction (an ACP "
                "session's) cannot run on the cluster: run the front without cluster.url")
        if options.caller_tools or options.caller_results:
            raise ClientToolsUnsupportedError(
                "a caller's tools (an HTTP client's function tools) cannot run on the "
                "cluster yet: serve the HTTP API from a host without cluster.url")
        # the message's mode, the agent's, or the defaults': a `steer` is offered to the
        # session's running turn by its workflow (docs/steering.md, "On a cluster")
        mode = resolve_queue_mode(self._config, agent_id, parse_queue_mode(options.queue_mode))
        return await self.client.run_turn(session_key, message,
                                          replace(options, queue_mode=mode))

    async def close(self) -> None:
        await self.relay.close()


async def open_cluster_turns(url: str, config: ClawConfig, *, store_url: str,
                             transport: ClusterTransport,
                             queue_wait_seconds: float) -> ClusterTurnExecutor:
    """Check the shared store and open the turn event relay for a front of the cluster
    at `url`."""
    from clawharness.cluster.client import ClusterClient
    from clawharness.cluster.events import TurnEventRelay

    check_shared_store(store_url, "front")
    relay = TurnEventRelay(store_url)
    await relay.open()
    client = ClusterClient(url, config.cluster, relay, front_id=new_worker_id(),
                           transport=transport, queue_wait_seconds=queue_wait_seconds)
    return ClusterTurnExecutor(config, client, relay)


def cluster_transport(settings: ClusterConfig, *, env: Mapping[str, str],
                      base_dir: Path) -> ClusterTransport:
    """How a member reaches the cluster (`cluster.tls`, `cluster.apiKey`), its certificates
    read from `base_dir` now; `ConfigError` naming the key when one cannot be."""
    from clawharness.cluster.transport import cluster_transport as build

    return build(settings, env=env, base_dir=base_dir)


async def probe_cluster(url: str, settings: ClusterConfig,
                        transport: ClusterTransport) -> ClusterStatus:
    """How the cluster at `url` is: reachable, its server's version, its workers."""
    from clawharness.cluster.status import probe_cluster as probe

    return await probe(url, settings, transport)
