"""The worker's workflow runner: still Temporal's sandbox, payloads intact, no context
asked for where nothing reads it."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Sequence
from datetime import timedelta

from cluster_rig import TemporalServer
from sandbox_probe import SandboxProbe, echo
from temporalio.api.common.v1 import Payload
from temporalio.client import Client
from temporalio.converter import DataConverter, PayloadCodec
from temporalio.worker import Worker
from temporalio.worker.workflow_sandbox import SandboxedWorkflowRunner

from clawharness.cluster.messages import TurnRequest
from clawharness.worker.runner import ContextFreeRunner, needs_payload_contexts, sandboxed_runner


class _Identity(PayloadCodec):
    async def encode(self, payloads: Sequence[Payload]) -> list[Payload]:
        return list(payloads)

    async def decode(self, payloads: Sequence[Payload]) -> list[Payload]:
        return list(payloads)


def test_the_cluster_converter_reads_no_payload_context() -> None:
    runner = sandboxed_runner(DataConverter.default)
    assert isinstance(runner, ContextFreeRunner)
    assert isinstance(runner.inner, SandboxedWorkflowRunner)


def test_a_codec_keeps_the_plain_sandboxed_runner() -> None:
    converter = DataConverter(payload_codec=_Identity())
    assert needs_payload_contexts(converter)
    assert type(sandboxed_runner(converter)) is SandboxedWorkflowRunner


def test_workflows_run_sandboxed_and_payloads_round_trip(
        temporal_server: TemporalServer) -> None:
    async def scenario() -> list[str]:
        client = await Client.connect(f"127.0.0.1:{temporal_server.port}")
        queue = f"probe-{uuid.uuid4().hex[:8]}"
        async with Worker(client, task_queue=queue, workflows=[SandboxProbe],
                          activities=[echo],
                          workflow_runner=sandboxed_runner(client.data_converter)):
            said: list[str] = await client.execute_workflow(
                SandboxProbe.run, TurnRequest(turn_id="t1", session_key="agent:main:x",
                                              message="héllo"),
                id=f"probe-{uuid.uuid4().hex}", task_queue=queue,
                execution_timeout=timedelta(seconds=60))
            return said

    said = asyncio.run(scenario())
    assert said == ["True", "RestrictedWorkflowAccessError", "True:agent:main:x/héllo"]
