"""Sandbox bind-mount specs (`host:container[:options]`), as OpenClaw writes them."""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["SandboxBindSpec", "split_sandbox_bind_spec"]

_DRIVE_PREFIX_RE = re.compile(r"[A-Za-z]:[\\/]")


@dataclass(frozen=True, slots=True)
class SandboxBindSpec:
    """The three parts of a bind spec; `options` is "" when absent."""

    host: str
    container: str
    options: str


def _separator_index(spec: str) -> int:
    # A Windows drive letter (`C:\`) is part of the path, not the separator.
    return spec.find(":", 2 if _DRIVE_PREFIX_RE.match(spec) else 0)


def split_sandbox_bind_spec(
    spec: str, *, allow_windows_container_path: bool = False
) -> SandboxBindSpec | None:
    """Split a bind spec; None when it has no `:` separator."""
    separator = _separator_index(spec)
    if separator == -1:
        return None
    host = spec[:separator]
    rest = spec[separator + 1 :]
    options_start = _separator_index(rest) if allow_windows_container_path else rest.find(":")
    if options_start == -1:
        return SandboxBindSpec(host, rest, "")
    return SandboxBindSpec(host, rest[:options_start], rest[options_start + 1 :])
