"""`clawharness cluster status`: whether turns submitted now would run, and where."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from cluster_rig import ClusterRig, free_port

pytestmark = pytest.mark.integration


def _status(rig: ClusterRig, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "clawharness", "cluster", "status", "--config",
         str(rig.config_path), *args], env={**rig.env(), "COLUMNS": "200"},
        capture_output=True, text=True, timeout=120)


def test_status_lists_the_polling_workers_and_says_ready(make_rig) -> None:
    rig: ClusterRig = make_rig({"responses": []})
    rig.start_worker("w1")
    rig.start_worker("w2")
    proc = _status(rig, "--json")
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert report["reachable"] is True and report["ready"] is True
    assert [w["workerId"] for w in report["workers"]] == ["w1", "w2"]
    assert all(0 <= w["secondsAgo"] < 120 for w in report["workers"])
    assert report["serverVersion"] and report["taskQueue"] == rig.task_queue
    assert report["transport"] == "plaintext" and report["error"] is None
    shown = _status(rig)
    assert shown.returncode == 0 and "ready" in shown.stdout and "w2" in shown.stdout


def test_status_of_a_queue_no_worker_polls_exits_1(make_rig) -> None:
    rig: ClusterRig = make_rig({"responses": []})
    proc = _status(rig, "--json")
    assert proc.returncode == 1
    report = json.loads(proc.stdout)
    assert (report["reachable"], report["ready"], report["workers"]) == (True, False, [])


def test_status_of_an_unreachable_cluster_names_it_and_exits_1(make_rig) -> None:
    rig: ClusterRig = make_rig({"responses": []})
    dead = f"temporal://127.0.0.1:{free_port()}"
    proc = _status(rig, "--cluster", dead, "--json")
    assert proc.returncode == 1
    report = json.loads(proc.stdout)
    assert report["reachable"] is False and report["url"] == dead
    assert dead in report["error"]
    shown = _status(rig, "--cluster", dead)
    assert shown.returncode == 1 and "unreachable" in shown.stdout


def test_status_runs_side_by_side_all_exit_cleanly(make_rig) -> None:
    """Short-lived processes that talked to the cluster: each ends with its own exit code,
    never the SDK's abort at interpreter teardown (which, before the CLI left without it,
    took about a quarter of such runs on a busy machine)."""
    rig: ClusterRig = make_rig({"responses": []})
    rig.start_worker("w1")
    command = [sys.executable, "-m", "clawharness", "cluster", "status", "--config",
               str(rig.config_path), "--json"]
    procs = [subprocess.Popen(command, env=rig.env(), stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for _ in range(12)]
    outcomes = [(proc.wait(timeout=120), proc.communicate()) for proc in procs]
    for code, (out, err) in outcomes:
        assert code == 0, err
        assert json.loads(out)["ready"] is True
