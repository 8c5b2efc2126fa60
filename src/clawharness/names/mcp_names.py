"""Model-facing names for MCP servers.

Server names from config may hold any characters; providers accept only
`[A-Za-z0-9_-]` tool names starting with a letter. Each server gets a sanitized name of
at most 30 characters, unique case-insensitively, with `-2`, `-3`, … suffixes assigned
in declaration order so existing configs keep their names.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Final

from clawharness._text import trim

__all__ = ["SERVER_NAME_MAX_CHARS", "assign_mcp_catalog_safe_server_names", "sanitize_server_name"]

#: longest sanitized server name (leaves room for `__tool` in a 64-character tool id)
SERVER_NAME_MAX_CHARS: Final = 30
_UNSAFE_RE = re.compile(r"[^A-Za-z0-9_-]")
_STARTS_WITH_LETTER_RE = re.compile(r"[A-Za-z]")


def _sanitize_fragment(raw: str, fallback: str, max_chars: int) -> str:
    normalized = _UNSAFE_RE.sub("-", trim(raw)) or fallback
    safe = normalized if _STARTS_WITH_LETTER_RE.match(normalized) else f"{fallback}-{normalized}"
    return safe[:max_chars] if max_chars and len(safe) > max_chars else safe


def sanitize_server_name(raw: str, used_names: set[str]) -> str:
    """Sanitize one server name and reserve it (lower-cased) in `used_names`."""
    base = _sanitize_fragment(raw, "mcp", SERVER_NAME_MAX_CHARS)
    candidate = base
    counter = 2
    while candidate.lower() in used_names:
        suffix = f"-{counter}"
        candidate = f"{base[: max(1, SERVER_NAME_MAX_CHARS - len(suffix))]}{suffix}"
        counter += 1
    used_names.add(candidate.lower())
    return candidate


def assign_mcp_catalog_safe_server_names(server_names: Iterable[str]) -> dict[str, str]:
    """Map each declared server name to its safe name, in declaration order.

    A name declared twice keeps its first position and gets the later assignment.
    """
    used: set[str] = set()
    assignments: dict[str, str] = {}
    for name in server_names:
        assignments[name] = sanitize_server_name(name, used)
    return assignments
