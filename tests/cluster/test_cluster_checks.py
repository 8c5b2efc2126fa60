"""The cluster's checks that need no server: URLs, server versions, the store."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from clawharness.cluster.connect import check_server_version
from clawharness.cluster.members import check_shared_store
from clawharness.cluster.messages import LocalTurn, SessionWorkflowInput, TurnFailure, TurnRequest
from clawharness.config.loader import load_config
from clawharness.errors import ClusterError, ClusterRefusedError, ConfigError
from clawharness.names.urls import cluster_url_error, parse_cluster_url


def test_a_cluster_url_is_temporal_host_and_port() -> None:
    address = parse_cluster_url("temporal://10.1.2.3:7233")
    assert (address.host, address.port, address.target) == ("10.1.2.3", 7233, "10.1.2.3:7233")
    assert parse_cluster_url("temporal://[::1]:7233").target == "[::1]:7233"


@pytest.mark.parametrize(("url", "says"), [
    ("http://localhost:7233", "scheme 'http'"),
    ("localhost:7233", "has no scheme"),
    ("temporal://localhost", "names no port"),
    ("temporal://:7233", "names no host"),
    ("temporal://localhost:99999", "port is not a number"),
    ("temporal://localhost:7233/ns", "nothing after the port"),
    ("temporal://user:pw@localhost:7233", "credentials"),
])
def test_a_bad_cluster_url_says_what_is_wrong(url: str, says: str) -> None:
    problem = cluster_url_error(url)
    assert problem is not None and says in problem
    with pytest.raises(ClusterError, match=r"temporal://HOST:PORT|credentials|port"):
        parse_cluster_url(url)


def test_config_refuses_a_bad_cluster_url_at_its_key(tmp_path: Path) -> None:
    path = tmp_path / "c.json"
    path.write_text(json.dumps({"cluster": {"url": "http://x:1"}}))
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    assert caught.value.key_path == "cluster.url"
    assert "scheme 'http'" in str(caught.value)


@pytest.mark.parametrize("version", ["1.32.0", "1.24.0", "v1.25.2", "2.0.0-rc1"])
def test_a_supported_server_version_passes(version: str) -> None:
    check_server_version("temporal://h:1", version)


@pytest.mark.parametrize("version", ["1.23.9", "1.17.0", "", "banana"])
def test_an_old_or_unknown_server_version_is_refused_naming_both(version: str) -> None:
    with pytest.raises(ClusterRefusedError, match=r"temporal://h:1.*1\.24\.0 or newer"):
        check_server_version("temporal://h:1", version)


def test_a_sqlite_store_cannot_serve_a_cluster() -> None:
    with pytest.raises(ClusterRefusedError, match=r"PostgreSQL.*'/var/x\.db'.*SQLite"):
        check_shared_store("/var/x.db")
    with pytest.raises(ClusterRefusedError, match="cluster front"):
        check_shared_store("sqlite:///x.db", "front")
    check_shared_store("postgresql://u:p@h/db")


@pytest.mark.parametrize("value", [
    TurnRequest("t1", "agent:main:s", "hi", model="m/x", trace={"traceparent": "00-a"}),
    SessionWorkflowInput("agent:main:s", pending=[TurnRequest("t2", "agent:main:s", "yo")],
                         bound_queue="q@w1"),
    LocalTurn(ran=False, spill_to="q@w2"),
    TurnFailure("t3", "agent:main:s", "boom"),
], ids=lambda v: type(v).__name__)
def test_what_crosses_temporal_round_trips_with_evaluated_type_hints(value: object) -> None:
    """Temporal's converter reads a dataclass's type hints on every decode: they are
    types, not strings to evaluate again each time."""
    from temporalio.converter import DataConverter

    cls = type(value)
    assert not [name for name, hint in cls.__annotations__.items() if isinstance(hint, str)]
    converter = DataConverter.default.payload_converter
    assert converter.from_payloads(converter.to_payloads([value]), [cls]) == [value]
