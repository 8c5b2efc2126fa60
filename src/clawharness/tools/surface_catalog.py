"""The hidden-tool catalog behind a compact tool surface: entries, search, lookup.

`tool_search` scores entries by their name, id and description; `tool_call` finds one
by exact id or unique name. In `directory` mode the catalog also writes the prompt
section that lists deferred tools and picks the few tools a prompt most likely needs.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final, Literal

from clawharness.errors import ToolError
from clawharness.harness.types import ToolSpec

__all__ = [
    "CatalogSource",
    "ToolCatalog",
    "ToolCatalogEntry",
    "ToolSearchInputError",
    "catalog_source",
    "directory_prompt",
    "hydrate_for_prompt",
    "search_tokens",
]

CatalogSource = Literal["openclaw", "mcp", "client"]

_MAX_DIRECTORY_CHARS: Final = 18_000
_DIRECTORY_HYDRATION: Final = 4
#: (prompt terms, tool-text hints, weight) for directory hydration
_HYDRATION_GROUPS: Final[tuple[tuple[frozenset[str], tuple[str, ...], int], ...]] = (
    (frozenset({"search", "lookup", "look", "find", "current", "today", "price", "latest",
                "news"}), ("searxng", "web"), 8),
    (frozenset({"url", "link", "page", "fetch", "read", "article", "http", "https"}),
     ("fetch", "browser"), 8),
    (frozenset({"send", "reply", "message", "post", "react"}), ("message", "session", "send"), 7),
    (frozenset({"file", "path", "read", "write", "edit", "patch", "grep", "list"}),
     ("read", "write", "edit", "grep", "find", "ls", "patch"), 6),
    (frozenset({"run", "command", "shell", "terminal", "build", "test", "git"}),
     ("exec", "process"), 7),
    (frozenset({"remember", "recall", "memory", "history", "previous", "earlier"}),
     ("memory",), 6),
    (frozenset({"remind", "schedule", "later", "tomorrow", "daily", "weekly", "cron"}),
     ("cron", "automation"), 8),
)


class ToolSearchInputError(ToolError):
    """A tool-search control was called with bad input or an unknown tool."""

    code = "tool_search_input"


def search_tokens(text: str) -> list[str]:
    """The lower-cased words of `text` that search compares."""
    return [t for t in re.split(r"[^a-z0-9_./:-]+", text.lower()) if t]


def _properties(parameters: Mapping[str, Any]) -> Any:
    return parameters.get("properties") if isinstance(parameters, Mapping) else None


@dataclass(frozen=True, slots=True)
class ToolCatalogEntry:
    """One hidden tool, found by `tool_search` and run by `tool_call`."""

    id: str
    source: CatalogSource
    source_name: str
    name: str
    description: str
    parameters: Mapping[str, Any]
    tool: ToolSpec

    def compact(self) -> dict[str, Any]:
        """What search results show (untrusted MCP/client schemas stay deferred)."""
        return {"id": self.id, "source": self.source, "sourceName": self.source_name,
                "name": self.name, "description": self.description,
                "input": sorted(_properties(self.parameters) or {})
                if self.source == "openclaw" else "unknown"}


@dataclass(slots=True)
class ToolCatalog:
    """The hidden tools of one attempt, sorted by id, with usage counters."""

    entries: tuple[ToolCatalogEntry, ...]
    search_count: int = 0
    describe_count: int = 0
    call_count: int = 0

    def search(self, query: str, limit: int) -> list[dict[str, Any]]:
        """Best-scoring entries for `query` (name > id > description)."""
        self.search_count += 1
        terms = search_tokens(query)
        scored = []
        for entry in self.entries:
            name, ident, desc = entry.name.lower(), entry.id.lower(), entry.description.lower()
            score = 1 if not terms else sum(
                (20 if term in (name, ident) else 0) + (8 if term in name else 0)
                + (6 if term in ident else 0) + (2 if term in desc else 0) for term in terms
            )
            if score > 0:
                scored.append((score, entry))
        scored.sort(key=lambda pair: (-pair[0], pair[1].id))
        return [entry.compact() for _, entry in scored[:limit]]

    def find(self, needle: str) -> ToolCatalogEntry:
        """The entry with this exact id, else the one entry with this name."""
        needle = needle.strip()
        exact = next((e for e in self.entries if e.id == needle), None)
        if exact is not None:
            return exact
        named = [e for e in self.entries if e.name == needle]
        if len(named) > 1:
            raise ToolSearchInputError(f"Ambiguous tool name: {needle}; use an exact tool id.")
        if not named:
            hint = [e.name for e in self.entries if set(search_tokens(needle)) & set(search_tokens(e.name))][:3]
            suggestion = f" Did you mean: {', '.join(hint)}?" if hint else ""
            raise ToolSearchInputError(
                f"Unknown tool id: {needle}.{suggestion} Use tool_search to find a tool, "
                "tool_describe to inspect it, then tool_call with the exact id or name."
            )
        return named[0]


def catalog_source(tool: ToolSpec, client: bool) -> tuple[CatalogSource, str]:
    if client:
        return "client", "client"
    owner = (tool.owner or "").strip()
    if owner == "bundle-mcp" or owner.startswith("mcp:"):
        return "mcp", owner.removeprefix("mcp:") or "mcp"
    return "openclaw", owner or "core"


def hydrate_for_prompt(hidden: Sequence[ToolSpec], prompt: str) -> list[str]:
    names = [t.name for t in hidden]
    unique = {n for n in names if names.count(n) == 1}
    terms = set(search_tokens(prompt))
    scored = []
    for tool in hidden:
        if tool.name not in unique or catalog_source(tool, False)[0] == "mcp":
            continue  # untrusted MCP descriptions stay deferred until described
        text = f"{tool.name} {tool.description}".lower()
        score = 2 * len(set(search_tokens(text)) & terms) + sum(
            weight for words, hints, weight in _HYDRATION_GROUPS
            if words & terms and any(h in text for h in hints)
        )
        if score > 0:
            scored.append((score, tool.name))
    scored.sort(key=lambda pair: (-pair[0], pair[1]))
    return [name for _, name in scored[:_DIRECTORY_HYDRATION]]


def directory_prompt(entries: Iterable[ToolCatalogEntry]) -> str:
    listed = sorted((e for e in entries if e.source == "openclaw"), key=lambda e: (e.name, e.id))
    lines = [f"- {e.name} ({e.source_name}): {' '.join(e.description.split())[:180] or 'No description.'}"
             for e in listed]
    footer = "Call tool_describe with a listed tool name to load its full schema before tool_call."
    while lines and len("\n".join(["Available deferred-schema tools:", *lines, "", footer])) > _MAX_DIRECTORY_CHARS:
        lines.pop()
        footer = "Some tools are omitted: use tool_search to find them, then tool_describe."
    if not lines:
        return "Available deferred-schema tools: none."
    return "\n".join(["Available deferred-schema tools:", *lines, "", footer])
