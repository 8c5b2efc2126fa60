"""A Codex-bound session on the cluster: its turns run on the worker whose app-server
holds the thread; that worker killed, the next turn moves to the surviving worker, which
resumes the same thread (`thread/resume`) from the binding in the shared store."""

from __future__ import annotations

import json
import os
import signal
import sys
from pathlib import Path

import pytest
from cluster_rig import ClusterRig, Gate

from clawharness.attempt.turn import TurnOptions
from clawharness.harness.capabilities import ApprovalDecision
from clawharness.host import Host

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "integration" / "codex"))
from codex_rig import CODEX_BIN, MODEL, offline_config

pytestmark = [pytest.mark.integration,
              pytest.mark.skipif(not CODEX_BIN.exists(), reason="run scripts/native-runtimes.sh")]


async def test_a_codex_session_resumes_its_thread_on_the_surviving_worker(make_rig) -> None:
    rig: ClusterRig = make_rig({"responses": [{"text": "hello from codex"},
                                              {"text": "second answer"}]})
    rig.write_config(
        models={"providers": {"openai": {"agentRuntime": {"id": "codex"}}}},
        agents={"defaults": {"model": f"openai/{MODEL}", "workspace": str(rig.root / "ws")}},
        plugins={"entries": {"codex": {"enabled": True, "config": {"appServer": {
            "command": str(CODEX_BIN), "env": {"MOCK_OPENAI_API_KEY": "offline"},
            "config": offline_config(rig.server.base_url_openai),
            "approvalPolicy": "never", "sandbox": "workspace-write",
            "maxProcesses": 1, "idleTimeoutSeconds": 60}}}}},
        cluster={"url": rig.temporal.url, "taskQueue": rig.task_queue,
                 "heartbeatSeconds": 0.5, "rebindSeconds": 2})
    w1 = rig.start_worker("w1")
    async with Host.from_config(rig.config_path, env=rig.env()) as front:
        first = await front.run_turn("codex", "say hello")
        assert (first.terminal, first.text, first.runtime) == ("ok", "hello from codex", "codex")
        assert first.cluster.worker == "w1"
        [binding] = [r for r in await front.store.state_list("codex.bindings")
                     if "agent:main:codex" in r.key]
        rig.start_worker("w2")
        os.killpg(w1.pid, signal.SIGKILL)
        assert w1.wait(timeout=10) == -signal.SIGKILL
        second = await front.run_turn("codex", "again")
        assert (second.terminal, second.text) == ("ok", "second answer"), second.error
        assert second.cluster.worker == "w2"
        assert second.warnings == ()  # resumed, not started over
        [after] = [r for r in await front.store.state_list("codex.bindings")
                   if "agent:main:codex" in r.key]
        entries = await front.history("codex")
    # the same thread: the binding names the same thread, and the model saw turn one
    assert binding.value.get("threadId")
    assert after.value.get("threadId") == binding.value["threadId"]
    assert "hello from codex" in json.dumps(rig.server.requests[-1].body)
    texts = [(e.role, e.text) for e in entries]
    assert ("assistant", "hello from codex") in texts and ("assistant", "second answer") in texts


ESCALATED_TOUCH = {"tool_calls": [{"name": "exec_command", "arguments": {
    "cmd": "touch approved.txt", "sandbox_permissions": "require_escalated",
    "justification": "create a file"}}]}


@pytest.mark.parametrize(("decision", "runs"), [("allow-once", True), ("deny", False)])
async def test_codex_asking_for_approval_on_a_worker_is_answered_by_the_fronts_gate(
        make_rig, decision: ApprovalDecision, runs: bool) -> None:
    rig: ClusterRig = make_rig({"responses": [ESCALATED_TOUCH, {"text": "asked"}]})
    workspace = rig.root / "ws"
    rig.write_config(
        models={"providers": {"openai": {"agentRuntime": {"id": "codex"}}}},
        agents={"defaults": {"model": f"openai/{MODEL}", "workspace": str(workspace)}},
        tools={"exec": {"security": "full", "ask": "always"}},
        plugins={"entries": {"codex": {"enabled": True, "config": {"appServer": {
            "command": str(CODEX_BIN), "env": {"MOCK_OPENAI_API_KEY": "offline"},
            "config": offline_config(rig.server.base_url_openai),
            "approvalPolicy": "on-request", "sandbox": "read-only",
            "maxProcesses": 1, "idleTimeoutSeconds": 60}}}}})
    rig.start_worker("w1")
    gate = Gate(decision)
    async with Host.from_config(rig.config_path, env=rig.env()) as front:
        result = await front.run_turn("codex", "touch it", TurnOptions(approvals=gate))
    assert (result.terminal, result.runtime) == ("ok", "codex"), result.error
    assert result.cluster.worker == "w1"
    # Codex's request crossed from the worker's app-server to the front and back
    [asked] = gate.asked
    assert asked.tool_name == "exec" and "touch approved.txt" in asked.arguments["command"]
    assert asked.run_id == result.run_id and asked.session_key == "agent:main:codex"
    assert (workspace / "approved.txt").exists() is runs
