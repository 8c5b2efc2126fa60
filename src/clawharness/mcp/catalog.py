"""The MCP tool catalog: every server's tools under model-facing names (pure).

A tool's model-facing name is `<safe server name>__<tool name>`, both parts limited to
`[A-Za-z0-9_-]` (other characters become `-`) and the whole to 64 characters, as providers
require. Two tools that would share a name are told apart with `-2`, `-3`, … in
declaration order, never shadowed. Tool policy judges a tool under every name a rule may
use for it (`policy_names`): the offered name, the configured server's spelling
(`my.fs__read` for server `my.fs`) and the name before any `-2` was added, so a rule
written either way matches and a colliding tool cannot slip past a deny. A tool whose input schema is not a JSON object schema
is left out, with a warning naming the server and the tool. `tools.include` /
`tools.exclude` (globs on the raw tool name) filter a server's tools before naming.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from clawharness.harness.tool_spec import ToolSpec
from clawharness.mcp.specs import McpServerSpec
from clawharness.tools.surface import filter_runtime_compatible_tools

__all__ = ["TOOL_NAME_MAX_CHARS", "McpCatalogEntry", "McpServerTool", "build_catalog",
           "model_tool_name"]

#: providers accept tool names of at most 64 characters
TOOL_NAME_MAX_CHARS: Final = 64
_SEPARATOR: Final = "__"
_UNSAFE_RE: Final = re.compile(r"[^A-Za-z0-9_-]")


@dataclass(frozen=True, slots=True)
class McpServerTool:
    """A tool as one server lists it."""

    name: str
    description: str
    input_schema: Mapping[str, Any]
    output_schema: Mapping[str, Any] | None = None


@dataclass(frozen=True, slots=True)
class McpCatalogEntry:
    """One offered tool: its model-facing name and where calls go."""

    model_name: str
    server: str
    tool: str
    description: str
    parameters: Mapping[str, Any] = field(default_factory=dict)
    #: other spellings a tool policy rule may use (see the module docstring)
    policy_names: tuple[str, ...] = ()


def _policy_names(spec: McpServerSpec, tool: str, base: str, offered: str) -> tuple[str, ...]:
    spellings = (base, f"{spec.name}{_SEPARATOR}{tool}", f"{spec.safe_name}{_SEPARATOR}{tool}",
                 model_tool_name(spec.name, tool))
    return tuple(n for n in dict.fromkeys(spellings) if n != offered)


def model_tool_name(safe_server: str, tool: str) -> str:
    """`<server>__<tool>`, sanitized and cut to the provider limit."""
    tool_part = _UNSAFE_RE.sub("-", tool.strip()) or "tool"
    return f"{safe_server}{_SEPARATOR}{tool_part}"[:TOOL_NAME_MAX_CHARS]


def _wanted(spec: McpServerSpec, tool: str) -> bool:
    if spec.include is not None and not any(fnmatch.fnmatchcase(tool, g) for g in spec.include):
        return False
    return not any(fnmatch.fnmatchcase(tool, g) for g in spec.exclude)


def build_catalog(servers: Sequence[tuple[McpServerSpec, Sequence[McpServerTool]]]
                  ) -> tuple[tuple[McpCatalogEntry, ...], tuple[str, ...]]:
    """`(entries, warnings)` for the servers' tools, in declaration order."""
    entries: list[McpCatalogEntry] = []
    warnings: list[str] = []
    used: set[str] = set()
    for spec, tools in servers:
        for tool in tools:
            if not _wanted(spec, tool.name):
                continue
            probe = ToolSpec(tool.name, "", tool.input_schema, _never)
            _kept, problems = filter_runtime_compatible_tools([probe])
            if problems:
                why = "; ".join(problems[0]["violations"])
                warnings.append(f"MCP server {spec.name!r}: tool {tool.name!r} left out: its "
                                f"input schema is not usable ({why})")
                continue
            base = model_tool_name(spec.safe_name, tool.name)
            name, counter = base, 2
            while name.lower() in used:
                suffix = f"-{counter}"
                name = f"{base[:TOOL_NAME_MAX_CHARS - len(suffix)]}{suffix}"
                counter += 1
            if name != base:
                warnings.append(f"MCP server {spec.name!r}: tool {tool.name!r} is offered as "
                                f"{name!r} ({base!r} was taken)")
            used.add(name.lower())
            entries.append(McpCatalogEntry(name, spec.name, tool.name, tool.description,
                                           dict(tool.input_schema),
                                           _policy_names(spec, tool.name, base, name)))
    return tuple(entries), tuple(warnings)


async def _never(_args: Mapping[str, Any], _ctx: Any) -> dict[str, Any]:
    raise AssertionError("a schema probe is never executed")
