"""Which store URLs this host opens: checked by `open_store` and by config validation."""

from __future__ import annotations

import re

__all__ = ["STORE_URL_FORMS", "display_store_url", "store_url_error"]

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
