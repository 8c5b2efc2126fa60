"""Fixtures of the cluster tests: one Temporal dev server per test session, a rig per
test (schema, task queue, config, worker processes), the scripted model in a thread."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from cluster_rig import ClusterRig, TemporalServer, pg_unavailable

from clawharness.testing import ScriptedModelServer


@pytest.fixture(scope="session")
def temporal_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TemporalServer]:
    server = TemporalServer(tmp_path_factory.mktemp("temporal"))
    server.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def make_rig(temporal_server: TemporalServer,
             tmp_path: Path) -> Iterator[Callable[[dict[str, Any]], ClusterRig]]:
    """`make_rig(script)` -> a rig whose model answers from `script` (config written)."""
    if reason := pg_unavailable():
        pytest.fail(reason)
    made: list[tuple[ClusterRig, Any]] = []
    servers: list[Any] = []

    def make(script: dict[str, Any]) -> ClusterRig:
        server = ScriptedModelServer(script)
        running = server.run_in_thread()
        running.__enter__()
        servers.append((server, running))
        rig = ClusterRig(tmp_path, temporal_server, server.base_url_openai, server=server)
        rig.write_config()
        made.append((rig, server))
        return rig

    yield make
    for rig, _ in made:
        rig.close()
    for _, running in servers:
        running.__exit__(None, None, None)
