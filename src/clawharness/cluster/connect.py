"""Connecting to the cluster, failing closed: no answer is an error naming the URL."""

from __future__ import annotations

import asyncio
from datetime import timedelta

from temporalio.api.workflowservice.v1 import GetSystemInfoRequest
from temporalio.client import Client
from temporalio.service import RetryConfig

from clawharness.cluster.transport import ClusterTransport
from clawharness.errors import ClusterRefusedError, ClusterUnreachableError
from clawharness.names.urls import ClusterAddress

__all__ = ["MIN_SERVER_VERSION", "check_server_version", "connect_cluster", "server_version"]

#: the oldest Temporal server a worker accepts (update-with-start, continue-as-new
#: suggestions and the sandbox's expectations hold from here)
MIN_SERVER_VERSION = (1, 24, 0)
CONNECT_SECONDS = 5.0


async def connect_cluster(address: ClusterAddress, *, namespace: str,
                          identity: str | None = None,
                          transport: ClusterTransport | None = None) -> Client:
    transport = transport or ClusterTransport()
    try:
        async with asyncio.timeout(CONNECT_SECONDS):
            return await Client.connect(
                address.target, namespace=namespace, identity=identity,
                tls=transport.tls, api_key=transport.api_key,
                connect_timeout=timedelta(seconds=CONNECT_SECONDS),
                retry_config=RetryConfig(max_retries=2, max_elapsed_time_millis=3000))
    except (TimeoutError, RuntimeError, OSError) as exc:
        raise ClusterUnreachableError(
            f"the cluster at {address.url} is unreachable ({transport.describe()}): "
            f"{exc or 'no answer'}") from exc


async def server_version(client: Client) -> str:
    info = await client.workflow_service.get_system_info(GetSystemInfoRequest())
    return str(info.server_version)


def _parse_version(text: str) -> tuple[int, ...] | None:
    core = text.strip().lstrip("v").split("-", 1)[0].split("+", 1)[0]
    try:
        return tuple(int(part) for part in core.split("."))
    except ValueError:
        return None


def check_server_version(url: str, version: str) -> None:
    """Refuse a Temporal server older than `MIN_SERVER_VERSION` (or of no known version)."""
    parsed = _parse_version(version)
    floor = ".".join(map(str, MIN_SERVER_VERSION))
    if parsed is None:
        raise ClusterRefusedError(
            f"the cluster at {url} reports Temporal server version {version!r}, which is not "
            f"a version this worker can check; it needs {floor} or newer")
    if parsed < MIN_SERVER_VERSION:
        raise ClusterRefusedError(
            f"the cluster at {url} runs Temporal server {version}; this worker needs "
            f"{floor} or newer")
