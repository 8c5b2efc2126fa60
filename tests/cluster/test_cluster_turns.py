"""Turns through the cluster: a front `Host` with `cluster.url`, real worker processes,
the real Temporal dev server and PostgreSQL."""

from __future__ import annotations

import itertools

import pytest
from cluster_rig import ClusterRig

from clawharness.attempt.turn import TurnOptions
from clawharness.host import Host

pytestmark = pytest.mark.integration


async def test_a_front_runs_a_turn_on_a_worker_and_streams_its_reply(make_rig) -> None:
    rig: ClusterRig = make_rig({"responses": [
        {"match": "^hello$", "text": "hi from the cluster, streamed in parts"}]})
    rig.start_worker("w1")
    deltas: list[str] = []
    async with Host.from_config(rig.config_path, env=rig.env()) as front:
        result = await front.run_turn("s", "hello", TurnOptions(on_partial_reply=deltas.append))
        assert (result.terminal, result.text) == ("ok", "hi from the cluster, streamed in parts")
        assert result.session_key == "agent:main:s" and result.runtime == "openclaw"
        # partial replies came back from the worker as it streamed, cumulative
        assert deltas and deltas[-1] == result.text
        assert all(b.startswith(a) for a, b in itertools.pairwise(deltas))
        # the transcript is in the shared store, written by the worker
        entries = await front.history("s")
        assert [(e.role, e.text) for e in entries] == [
            ("user", "hello"), ("assistant", "hi from the cluster, streamed in parts")]
        assert entries[0].metadata["runId"] == result.run_id
