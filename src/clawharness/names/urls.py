"""The URLs this host opens: a store's (`sqlite:///...`, a file path, `postgresql://...`)
and a cluster's (`temporal://HOST:PORT`), checked by config validation and by what opens
them (`open_store`, the cluster front, a worker)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import urlsplit

from clawharness.errors import ClusterError

__all__ = [
    "CLUSTER_URL_FORM",
    "STORE_URL_FORMS",
    "ClusterAddress",
    "cluster_url_error",
    "display_store_url",
    "parse_cluster_url",
    "store_url_error",
]

_USERINFO = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*://)[^/@]*@")

STORE_URL_FORMS = "sqlite:///<path to a file>, a file path, or postgresql://..."


def display_store_url(target: str) -> str:
    """The URL for a message: any `user:password@` is masked."""
    return _USERINFO.sub(r"\1***@", target)


def store_url_error(target: str) -> str | None:
    """Why `target` is not a store URL this host can open, or None when it is."""
    if not target.strip():
        return f"the store URL is empty: expected {STORE_URL_FORMS}"
    if target.startswith(("postgresql://", "postgres://")):
        return None
    if target.startswith("sqlite:"):
        if not target.startswith("sqlite:///") or target == "sqlite:///":
            return "expected sqlite:///<path to a file> (three slashes, then the path)"
        if target[len("sqlite:///"):] == ":memory:":
            return "the SQLite store needs a file; :memory: is not supported"
        return None
    if "://" in target:
        scheme = target.split("://", 1)[0]
        return f"unsupported store scheme {scheme!r}: expected {STORE_URL_FORMS}"
    return None


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
        raise ClusterError(parsed)
    return parsed
