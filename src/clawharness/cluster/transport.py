"""How a front or a worker reaches the cluster: plaintext on loopback, TLS (the system's
roots or a private CA, with a client certificate for mutual TLS), and an API key.

Everything is read when the cluster is first reached, not at config load, so a config
can be checked on a machine without the certificates; a file that cannot be read or an
unset `${VAR}` is a `ConfigError` naming the key, and nothing connects.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from temporalio.service import TLSConfig

from clawharness.errors import ConfigError

if TYPE_CHECKING:
    from clawharness.config.schema import ClusterConfig

__all__ = ["ClusterTransport", "cluster_transport"]


@dataclass(frozen=True, slots=True)
class ClusterTransport:
    """`tls`: False (plaintext), True (the system's roots) or the SDK's `TLSConfig`."""

    tls: bool | TLSConfig = False
    api_key: str | None = None

    @property
    def secure(self) -> bool:
        return self.tls is not False

    def describe(self) -> str:
        """How the connection is made, for an error about it (never the key itself)."""
        if not self.secure:
            return "plaintext"
        parts = ["TLS"]
        if isinstance(self.tls, TLSConfig) and self.tls.client_cert is not None:
            parts.append("client certificate")
        if self.api_key is not None:
            parts.append("API key")
        return " + ".join(parts)


def _read(path: str, *, base_dir: Path, key_path: str) -> bytes:
    resolved = Path(os.path.expanduser(path))
    if not resolved.is_absolute():
        resolved = base_dir / resolved
    try:
        return resolved.read_bytes()
    except OSError as exc:
        raise ConfigError(f"cannot read {resolved}: {exc.strerror or exc}",
                          key_path=key_path) from exc


def cluster_transport(settings: ClusterConfig, *, env: Mapping[str, str],
                      base_dir: Path) -> ClusterTransport:
    """The transport `settings` describe, its files read from `base_dir` (the config
    file's folder) and its `${VAR}` key from `env`."""
    from clawharness.models.routes import expand_secret

    api_key = expand_secret(settings.api_key, env=env, where="cluster.apiKey")
    tls_settings = settings.tls
    if tls_settings is None:
        return ClusterTransport(tls=api_key is not None, api_key=api_key)
    if isinstance(tls_settings, bool):
        return ClusterTransport(tls=tls_settings, api_key=api_key)

    def read(path: str | None, key: str) -> bytes | None:
        return None if path is None else _read(path, base_dir=base_dir,
                                               key_path=f"cluster.tls.{key}")

    return ClusterTransport(tls=TLSConfig(
        server_root_ca_cert=read(tls_settings.ca_file, "caFile"),
        client_cert=read(tls_settings.cert_file, "certFile"),
        client_private_key=read(tls_settings.key_file, "keyFile"),
        domain=tls_settings.server_name), api_key=api_key)
