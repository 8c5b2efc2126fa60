"""Where state lives and turns run across processes: `store` (its URL), `cluster`
(Temporal scale-out, its TLS and API key) and `sessions` (the session writer lease)."""

from typing import Annotated

from pydantic import AfterValidator, Field, model_validator

from clawharness.config._node import _Node
from clawharness.config.checks import CheckFailed, check_cluster_url, check_store_url

__all__ = [
    "ClusterConfig",
    "ClusterTlsConfig",
    "SessionsConfig",
    "StoreConfig",
]


class StoreConfig(_Node):
    url: Annotated[str | None, AfterValidator(check_store_url)] = None


class ClusterTlsConfig(_Node):
    """TLS to the Temporal frontend: `caFile` to trust a private CA (else the system's
    roots), `certFile` with `keyFile` for mutual TLS, `serverName` when the certificate
    names another host than the URL. Relative paths are from the config file's folder."""

    ca_file: str | None = Field(default=None, alias="caFile")
    cert_file: str | None = Field(default=None, alias="certFile")
    key_file: str | None = Field(default=None, alias="keyFile")
    server_name: str | None = Field(default=None, min_length=1, alias="serverName")

    @model_validator(mode="after")
    def _client_pair(self) -> "ClusterTlsConfig":
        if (self.cert_file is None) != (self.key_file is None):
            given, missing = (("certFile", "keyFile") if self.key_file is None
                              else ("keyFile", "certFile"))
            raise CheckFailed(
                f"cluster.tls.{given} without cluster.tls.{missing}: a client certificate "
                "needs its key (and a key its certificate)", code="cluster-tls-incomplete",
                hint=f"set cluster.tls.{missing}, or remove cluster.tls.{given}")
        return self


class ClusterConfig(_Node):
    """Scale-out on Temporal (see docs/scale-out.md): fronts submit turns to the cluster at
    `url`, workers run them; without `url` a host runs every turn in-process."""

    #: `temporal://HOST:PORT`
    url: Annotated[str | None, AfterValidator(check_cluster_url)] = None
    namespace: str = "default"
    #: the task queue every worker polls for turns (bound native sessions use a queue of
    #: their worker's own, derived from this name)
    task_queue: str = Field(default="clawharness-turns", min_length=1, alias="taskQueue")
    #: how often a running turn heartbeats; a worker silent for three of these is dead
    #: and its turn is retried on another worker
    heartbeat_seconds: float = Field(default=2.0, gt=0, le=300, alias="heartbeatSeconds")
    #: how long a turn waits on the queue of the worker its native runtime lives on
    #: before it moves to any worker (that worker is taken for dead)
    rebind_seconds: float = Field(default=10.0, gt=0, le=3600, alias="rebindSeconds")
    #: turns one worker runs at once
    max_concurrent_turns: int = Field(default=10, ge=1, le=10_000, alias="maxConcurrentTurns")
    #: a Temporal API key (Temporal Cloud), sent as a bearer token; `"${VAR}"` reads it
    #: from the environment when the cluster is first reached
    api_key: str | None = Field(default=None, alias="apiKey")
    #: TLS to the cluster: true (the system's roots), a `ClusterTlsConfig`, or false;
    #: unset means on when `apiKey` is set, else off
    tls: bool | ClusterTlsConfig | None = None

    @model_validator(mode="after")
    def _no_key_in_the_clear(self) -> "ClusterConfig":
        if self.api_key is not None and self.tls is False:
            raise CheckFailed(
                "cluster.apiKey with cluster.tls false would send the key in plaintext, so "
                "it is refused", code="cluster-api-key-in-clear",
                hint="remove `tls: false` (an API key turns TLS on), or drop cluster.apiKey",
                show_value=False)
        return self


class SessionsConfig(_Node):
    """One writer per session across processes (see docs/store.md, "Session writers")."""

    #: how long a turn (or reset, delete, rewind) waits for its session's writer lease
    writer_wait_seconds: float = Field(default=300.0, gt=0, le=86_400,
                                       alias="writerWaitSeconds")
    #: a writer lease's lifetime between renewals (renewed every third of it); a holder
    #: that died is replaced this long after its last renewal
    writer_lease_seconds: float = Field(default=30.0, ge=0.5, le=3_600,
                                        alias="writerLeaseSeconds")
