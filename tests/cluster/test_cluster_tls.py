"""Reaching a cluster over TLS: a private CA, mutual TLS, an API key; every way a
connection is not trusted fails the turn closed, naming the URL, and runs nothing."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from cluster_rig import ClusterRig, TemporalServer
from tls_proxy import Certificates, TlsProxy, make_certificates

from clawharness.cluster.connect import connect_cluster
from clawharness.cluster.transport import cluster_transport
from clawharness.config.loader import validate_config
from clawharness.config.schema import ClusterConfig
from clawharness.errors import ClusterUnreachableError, ConfigError
from clawharness.host import Host
from clawharness.names.urls import parse_cluster_url


@pytest.fixture(scope="module")
def certs(tmp_path_factory: pytest.TempPathFactory) -> Certificates:
    return make_certificates(tmp_path_factory.mktemp("certs"))


@pytest.fixture
def mtls_proxy(certs: Certificates, temporal_server: TemporalServer) -> Iterator[TlsProxy]:
    with TlsProxy(certs, temporal_server.port, require_client_cert=True) as proxy:
        yield proxy


def _cluster(rig: ClusterRig, proxy: TlsProxy, **settings: Any) -> dict[str, Any]:
    return {"url": f"temporal://127.0.0.1:{proxy.port}", "taskQueue": rig.task_queue,
            "heartbeatSeconds": 0.5, **settings}


def _mutual_tls(certs: Certificates, rig: ClusterRig) -> dict[str, Any]:
    """Relative paths, read from the config file's folder."""
    folder = rig.config_path.parent
    return {"caFile": os.path.relpath(certs.ca, folder),
            "certFile": os.path.relpath(certs.client_cert, folder),
            "keyFile": os.path.relpath(certs.client_key, folder),
            "serverName": "temporal.test"}


@pytest.mark.integration
async def test_turns_run_over_mutual_tls_with_a_private_ca(
        make_rig, certs: Certificates, mtls_proxy: TlsProxy) -> None:
    rig: ClusterRig = make_rig({"responses": [{"text": "over TLS"}]})
    rig.write_config(cluster=_cluster(rig, mtls_proxy, tls=_mutual_tls(certs, rig)))
    rig.start_worker("w1")
    async with Host.from_config(rig.config_path, env=rig.env()) as front:
        result = await front.run_turn("s", "hello")
    assert result.terminal == "ok" and result.text == "over TLS"
    # the worker's and the front's connections both came through the TLS proxy
    assert mtls_proxy.accepted >= 2


@pytest.mark.integration
@pytest.mark.parametrize("case", ["no client certificate", "a CA it does not trust",
                                  "plaintext"])
async def test_an_untrusted_connection_fails_the_turn_closed_naming_the_url(
        make_rig, certs: Certificates, mtls_proxy: TlsProxy, case: str) -> None:
    rig: ClusterRig = make_rig({"responses": [{"text": "must never run"}]})
    tls: dict[str, Any] | None = {
        "no client certificate": {"caFile": str(certs.ca), "serverName": "temporal.test"},
        "a CA it does not trust": {**_mutual_tls(certs, rig), "caFile": str(certs.stranger_ca)},
        "plaintext": None,
    }[case]
    settings = {} if tls is None else {"tls": tls}
    rig.write_config(cluster=_cluster(rig, mtls_proxy, **settings))
    url = f"temporal://127.0.0.1:{mtls_proxy.port}"
    async with Host.from_config(rig.config_path, env=rig.env()) as front:
        with pytest.raises(ClusterUnreachableError, match=url.replace(".", r"\.")):
            await front.run_turn("s", "hello")
        assert await front.list_sessions() == []
    assert rig.server.requests == []


@pytest.mark.integration
async def test_an_api_key_from_the_environment_turns_tls_on_and_goes_with_every_call(
        certs: Certificates, temporal_server: TemporalServer) -> None:
    settings = ClusterConfig.model_validate({
        "apiKey": "${TEMPORAL_API_KEY}", "tls": {"caFile": str(certs.ca),
                                                  "serverName": "temporal.test"}})
    with TlsProxy(certs, temporal_server.port, require_client_cert=False) as proxy:
        transport = cluster_transport(settings, env={"TEMPORAL_API_KEY": "tk-123"},
                                      base_dir=Path.cwd())
        client = await connect_cluster(parse_cluster_url(f"temporal://127.0.0.1:{proxy.port}"),
                                       namespace="default", transport=transport)
        assert client.api_key == "tk-123"
        assert proxy.accepted >= 1
    # an API key with no tls settings at all means TLS on (the system's roots)
    assert cluster_transport(ClusterConfig.model_validate({"apiKey": "k"}), env={},
                             base_dir=Path.cwd()).tls is True


def test_an_unset_api_key_variable_is_a_config_error_naming_the_key() -> None:
    settings = ClusterConfig.model_validate({"apiKey": "${NO_SUCH_TEMPORAL_KEY}"})
    with pytest.raises(ConfigError, match="NO_SUCH_TEMPORAL_KEY") as caught:
        cluster_transport(settings, env={}, base_dir=Path.cwd())
    assert "cluster.apiKey" in str(caught.value)


def test_an_unreadable_certificate_is_a_config_error_naming_the_key(tmp_path: Path) -> None:
    settings = ClusterConfig.model_validate({"tls": {"caFile": "missing-ca.pem"}})
    with pytest.raises(ConfigError, match=r"missing-ca\.pem") as caught:
        cluster_transport(settings, env={}, base_dir=tmp_path)
    assert "cluster.tls.caFile" in str(caught.value)
    assert str(tmp_path) in str(caught.value)


@pytest.mark.parametrize(("cluster", "code"), [
    ({"apiKey": "k", "tls": False}, "cluster-api-key-in-clear"),
    ({"tls": {"certFile": "client.pem"}}, "cluster-tls-incomplete"),
    ({"tls": {"keyFile": "client.key"}}, "cluster-tls-incomplete"),
])
def test_config_refuses_a_key_in_the_clear_and_half_a_client_certificate(
        cluster: dict[str, Any], code: str) -> None:
    report = validate_config({"cluster": {"url": "temporal://127.0.0.1:7233", **cluster}})
    assert report.config is None
    codes = {problem.code for problem in report.problems}
    assert code in codes, report.problems
    # the key itself never appears in what is reported
    assert all("'k'" not in problem.message for problem in report.problems)
