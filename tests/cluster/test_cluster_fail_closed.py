"""Failing closed: a front never runs a turn behind an unreachable cluster's back; a
worker refuses a store the cluster cannot share."""

from __future__ import annotations

import json
import subprocess
import sys
import time

import pytest
from cluster_rig import ClusterRig, free_port

from clawharness.errors import ClusterRefusedError, ClusterUnreachableError, UnknownAgentError
from clawharness.host import Host

pytestmark = pytest.mark.integration


async def test_a_front_whose_cluster_is_unreachable_fails_the_turn_naming_it(make_rig) -> None:
    rig: ClusterRig = make_rig({"responses": [{"text": "must never run"}]})
    dead = f"temporal://127.0.0.1:{free_port()}"
    started = time.monotonic()
    async with Host.from_config(rig.config_path, env=rig.env(), cluster_url=dead) as front:
        with pytest.raises(ClusterUnreachableError, match=dead.replace(".", r"\.")):
            await front.run_turn("s", "hello")
        assert time.monotonic() - started < 15
        # nothing ran here instead: no session, no model request
        assert await front.list_sessions() == []
    assert rig.server.requests == []


async def test_a_front_refuses_a_ghost_agent_before_it_asks_the_cluster(make_rig) -> None:
    # issue 31: the front refuses what a worker would refuse, without reaching the cluster
    # (an unreachable one here: were the key sent on, the error would say so)
    rig: ClusterRig = make_rig({"responses": [{"text": "must never run"}]})
    dead = f"temporal://127.0.0.1:{free_port()}"
    async with Host.from_config(rig.config_path, env=rig.env(), cluster_url=dead) as front:
        with pytest.raises(UnknownAgentError, match="'ghost'"):
            await front.run_turn("agent:ghost:x", "hello")
        assert await front.list_sessions() == []
    assert rig.server.requests == []


def test_agent_against_an_unreachable_cluster_exits_with_the_json_error(make_rig) -> None:
    rig: ClusterRig = make_rig({"responses": [{"text": "must never run"}]})
    dead = f"temporal://127.0.0.1:{free_port()}"
    proc = subprocess.run(
        [sys.executable, "-m", "clawharness", "agent", "--config", str(rig.config_path),
         "--cluster", dead, "--json", "-m", "hello"],
        env=rig.env(), capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1, proc.stderr
    error = json.loads(proc.stdout)["error"]
    assert error["type"] == "cluster_unreachable" and dead in error["message"]
    assert rig.server.requests == []


def test_a_worker_on_a_sqlite_store_refuses_to_start(make_rig) -> None:
    rig: ClusterRig = make_rig({"responses": []})
    rig.write_config(store={"url": str(rig.root / "state" / "local.db")})
    proc = subprocess.run(
        [sys.executable, "-m", "clawharness", "worker", "--config", str(rig.config_path),
         "--json"], env=rig.env(), capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1
    error = json.loads(proc.stdout)["error"]
    assert error["type"] == "cluster_refused"
    assert "PostgreSQL" in error["message"] and "local.db" in error["message"]


async def test_a_front_on_a_sqlite_store_refuses_the_cluster(make_rig) -> None:
    rig: ClusterRig = make_rig({"responses": []})
    rig.write_config(store={"url": str(rig.root / "state" / "local.db")})
    with pytest.raises(ClusterRefusedError, match="cluster front"):
        async with Host.from_config(rig.config_path, env=rig.env()):
            pass


async def test_a_front_whose_cluster_has_no_worker_fails_the_turn_at_once(make_rig) -> None:
    from clawharness.errors import ClusterNoWorkersError

    rig: ClusterRig = make_rig({"responses": [{"text": "must never run"}]})
    async with Host.from_config(rig.config_path, env=rig.env()) as front:
        with pytest.raises(ClusterNoWorkersError, match=rf"no worker polls task queue "
                                                        rf"'{rig.task_queue}'"):
            await front.run_turn("s", "hello")
        assert await front.list_sessions() == []
    assert rig.server.requests == []
