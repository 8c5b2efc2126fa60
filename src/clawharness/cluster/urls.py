"""`temporal://HOST:PORT`: the cluster's address as config and the CLI name it."""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlsplit

__all__ = ["ClusterAddress", "cluster_url_error", "parse_cluster_url"]

CLUSTER_URL_FORM = "temporal://HOST:PORT"


@dataclass(frozen=True, slots=True)
class ClusterAddress:
    url: str
    host: str
    port: int

    @property
    def target(self) -> str:
        """What the Temporal client connects to (`host:port`)."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{host}:{self.port}"


def _parse(url: str) -> ClusterAddress | str:
    text = url.strip()
    if not text.startswith("temporal://"):
        scheme = text.split("://", 1)[0] if "://" in text else None
        found = f"scheme {scheme!r}" if scheme else "no scheme"
        return f"cluster URL {url!r} has {found}: expected {CLUSTER_URL_FORM}"
    parts = urlsplit(text)
    if parts.path not in ("", "/") or parts.query or parts.fragment:
        return f"cluster URL {url!r}: expected {CLUSTER_URL_FORM} with nothing after the port"
    if parts.username or parts.password:
        return f"cluster URL {url!r}: credentials do not belong in the URL"
    try:
        port = parts.port
    except ValueError:
        return f"cluster URL {url!r}: the port is not a number from 1 to 65535"
    if not parts.hostname:
        return f"cluster URL {url!r} names no host: expected {CLUSTER_URL_FORM}"
    if port is None or port == 0:
        return f"cluster URL {url!r} names no port: expected {CLUSTER_URL_FORM}"
    return ClusterAddress(text, parts.hostname, port)


def cluster_url_error(url: str) -> str | None:
    """Why `url` is not a cluster URL, or None when it is."""
    parsed = _parse(url)
    return parsed if isinstance(parsed, str) else None


def parse_cluster_url(url: str) -> ClusterAddress:
    """The address in `url`; `ClusterError` naming what is wrong with it."""
    parsed = _parse(url)
    if isinstance(parsed, str):
        from clawharness.errors import ClusterError

        raise ClusterError(parsed)
    return parsed
