"""The tool surface a native harness shows its model: compact routing over a hidden catalog.

`create_agent_harness_tool_surface_runtime(...)` decides, per attempt:

- whether tools are available at all (disabled tools, raw model runs, an empty allowlist,
  a private message-only completion and proposal-only skill-workshop runs keep the raw
  surface);
- code-mode controls (when config engages code mode for the model and the harness
  supplies the control tools) or tool-search controls (`tool_search`, `tool_describe`,
  `tool_call`), never both;
- local-model lean defaults (drop channel- and media-heavy tools, enable tool search);
- runtime-compatible schema filtering (drop tools whose JSON schema the runtime cannot
  take, with diagnostics).

`compact_tools(tools)` registers the hidden tools in a per-attempt catalog and returns
the visible surface. The model finds hidden tools with `tool_search` and runs them by
name through `tool_call`, which calls the harness's own execution callback. In
`directory` mode the names stay listed in a prompt section and the tools most relevant
to the prompt are hydrated as direct tools. `cleanup()` clears the catalog.
"""

from __future__ import annotations

import json
import re
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal
from urllib.parse import urlsplit

from clawharness.harness.types import ToolCallContext, ToolSpec
from clawharness.names.tool_groups import expand_tool_groups, normalize_tool_name
from clawharness.tools.surface_catalog import (
    CatalogSource,
    ToolCatalog,
    ToolCatalogEntry,
    ToolSearchInputError,
    catalog_source,
    directory_prompt,
    hydrate_for_prompt,
)

__all__ = [
    "TOOL_CALL_TOOL_NAME",
    "TOOL_DESCRIBE_TOOL_NAME",
    "TOOL_SEARCH_TOOL_NAME",
    "AgentHarnessToolSurfaceRuntime",
    "CatalogCall",
    "CompactedToolSurface",
    "ToolCatalog",
    "ToolCatalogEntry",
    "ToolSearchConfig",
    "ToolSearchInputError",
    "ToolSurfacePlan",
    "create_agent_harness_tool_surface_runtime",
    "filter_runtime_compatible_tools",
    "is_local_model",
    "resolve_tool_search_config",
]

TOOL_SEARCH_TOOL_NAME = "tool_search"
TOOL_DESCRIBE_TOOL_NAME = "tool_describe"
TOOL_CALL_TOOL_NAME = "tool_call"
_CONTROL_NAMES = frozenset({TOOL_SEARCH_TOOL_NAME, TOOL_DESCRIBE_TOOL_NAME, TOOL_CALL_TOOL_NAME})
_LEAN_DENY = frozenset({"browser", "automations", "image_generate", "message", "music_generate",
                        "pdf", "tts", "video_generate"})
_LEAN_SEARCH_DEFAULTS = {"enabled": True, "mode": "tools", "searchDefaultLimit": 5,
                         "maxSearchLimit": 10}
_LOCAL_PROVIDERS = frozenset({"ollama", "vllm", "lmstudio", "llamacpp", "llama.cpp", "localai"})
_LOCAL_HOSTS = frozenset({"localhost", "127.0.0.1", "::1", "0.0.0.0", "host.docker.internal"})
# --- config (pure) --------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ToolSearchConfig:
    """Resolved `tools.toolSearch`: `tools` (search/describe/call) or `directory` mode."""

    enabled: bool = False
    mode: Literal["tools", "directory"] = "tools"
    search_default_limit: int = 8
    max_search_limit: int = 20


def _positive_int(value: Any, fallback: int) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else fallback


def resolve_tool_search_config(raw: Any) -> ToolSearchConfig:
    """`true`/`false`, or an object whose presence (without `enabled`) turns it on."""
    if raw is True or raw is False:
        return ToolSearchConfig(enabled=raw)
    if not isinstance(raw, Mapping):
        return ToolSearchConfig()
    configured = any(key != "enabled" for key in raw)
    enabled = raw.get("enabled")
    max_limit = max(1, min(50, _positive_int(raw.get("maxSearchLimit"), 20)))
    return ToolSearchConfig(
        enabled=enabled if isinstance(enabled, bool) else configured,
        # the sandboxed "code" search mode needs a JS runtime; it falls back to tools
        mode="directory" if raw.get("mode") == "directory" else "tools",
        search_default_limit=max(1, min(max_limit, _positive_int(raw.get("searchDefaultLimit"), 8))),
        max_search_limit=max_limit,
    )


def is_local_model(provider: str | None, base_url: str | None = None) -> bool:
    """A model served from this machine or the local network (lean defaults apply)."""
    if provider and provider.strip().lower() in _LOCAL_PROVIDERS:
        return True
    if not base_url:
        return False
    host = (urlsplit(base_url).hostname or "").lower()
    return host in _LOCAL_HOSTS or host.endswith(".local") or host.startswith("127.")


def _get(mapping: Any, *path: str) -> Any:
    for key in path:
        if not isinstance(mapping, Mapping):
            return None
        mapping = mapping.get(key)
    return mapping


def _code_mode_enabled(config: Mapping[str, Any], agent_id: str | None, model_key: str | None) -> Any:
    def read(value: Any) -> Any:
        return value.get("enabled") if isinstance(value, Mapping) else value

    agent = _get(config, "agents", "entries", agent_id) if agent_id else None
    candidates = (
        _get(agent, "models", model_key, "codeMode") if model_key else None,
        read(_get(agent, "tools", "codeMode")),
        _get(config, "agents", "defaults", "models", model_key, "codeMode") if model_key else None,
        read(_get(config, "tools", "codeMode")),
    )
    return next((c for c in candidates if c is not None), False)


def filter_runtime_compatible_tools(
    tools: Sequence[ToolSpec],
) -> tuple[list[ToolSpec], list[dict[str, Any]]]:
    """Keep tools whose parameters are a JSON object schema the runtime accepts."""
    kept: list[ToolSpec] = []
    diagnostics: list[dict[str, Any]] = []
    for index, tool in enumerate(tools):
        violations = _schema_violations(tool.parameters, f"{tool.name or f'tool[{index}]'}.parameters")
        if violations:
            diagnostics.append({"toolName": tool.name, "toolIndex": index, "violations": violations})
        else:
            kept.append(tool)
    return kept, diagnostics


def _schema_violations(schema: Any, path: str) -> list[str]:
    try:
        parsed = json.loads(json.dumps(schema, allow_nan=False))
    except (TypeError, ValueError):
        return [f"{path} is not JSON-serializable"]
    violations: list[str] = []
    if not isinstance(parsed, dict):
        violations.append(f"{path} must be a JSON object schema")
    elif "type" in parsed and parsed["type"] != "object":
        violations.append(f'{path}.type must be "object"')

    def walk(node: Any, where: str) -> None:
        if isinstance(node, list):
            for i, item in enumerate(node):
                walk(item, f"{where}[{i}]")
        elif isinstance(node, dict):
            violations.extend(f"{where}.{k}" for k in ("$dynamicRef", "$dynamicAnchor") if k in node)
            for key, value in node.items():
                walk(value, f"{where}.{key}")

    walk(parsed, path)
    return violations


# --- the plan (pure) ------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ToolSurfacePlan:
    """Which controls this attempt's surface uses."""

    tools_available: bool
    code_mode_controls_enabled: bool
    tool_search_controls_enabled: bool
    tool_search: ToolSearchConfig
    local_model_lean: bool
    force_direct_message_tool: bool


# --- the catalog ----------------------------------------------------------------------


@dataclass(slots=True)
class _CatalogRef:
    current: ToolCatalog | None = None


@dataclass(frozen=True, slots=True)
class CatalogCall:
    """One hidden-tool call handed to the harness's execution callback."""

    tool: ToolSpec
    tool_name: str
    source: CatalogSource
    source_name: str
    tool_call_id: str
    parent_tool_call_id: str | None
    input: Mapping[str, Any]


CatalogToolExecutor = Callable[[CatalogCall], Awaitable[dict[str, Any]]]
CodeModeToolsFactory = Callable[["AgentHarnessToolSurfaceRuntime"], Sequence[ToolSpec]]


@dataclass(frozen=True, slots=True)
class CompactedToolSurface:
    """The visible tools, the catalog behind them, and schema diagnostics."""

    tools: tuple[ToolSpec, ...]
    catalog_tool_count: int
    compacted: bool
    diagnostics: tuple[dict[str, Any], ...] = ()
    directory_prompt: str | None = None


@dataclass(slots=True)
class AgentHarnessToolSurfaceRuntime:
    """The per-attempt tool surface runtime (see the module docstring)."""

    plan: ToolSurfacePlan
    execute_tool: CatalogToolExecutor
    runtime_tool_allowlist: tuple[str, ...] | None
    direct_tool_names: tuple[str, ...] = ()
    code_mode_tools_factory: CodeModeToolsFactory | None = None
    _ref: _CatalogRef = field(default_factory=_CatalogRef)
    _calls: int = 0

    @property
    def catalog(self) -> ToolCatalog | None:
        """The live catalog, or None before compaction and after cleanup."""
        return self._ref.current

    def compact_tools(self, tools: Sequence[ToolSpec], *, prompt: str | None = None,
                      client_tools: Sequence[ToolSpec] = ()) -> CompactedToolSurface:
        """Register hidden tools and return the surface the model sees."""
        plan = self.plan
        preserve = set(expand_tool_groups([*self.direct_tool_names,
                                           *(["message"] if plan.force_direct_message_tool else [])]))
        candidates = [*tools, *client_tools]
        if plan.local_model_lean:
            candidates = [t for t in candidates if normalize_tool_name(t.name) in preserve
                          or normalize_tool_name(t.name) not in _LEAN_DENY]
        compatible, diagnostics = filter_runtime_compatible_tools(candidates)
        if not (plan.code_mode_controls_enabled or plan.tool_search_controls_enabled):
            visible = [t for t in compatible if t.name not in _CONTROL_NAMES]
            return CompactedToolSurface(tuple(visible), 0, False, tuple(diagnostics))
        client_names = {id(t) for t in client_tools}
        hidden = [t for t in compatible if t.name not in _CONTROL_NAMES
                  and normalize_tool_name(t.name) not in preserve]
        hidden_ids = {id(t) for t in hidden}
        direct = [t for t in compatible if t.name not in _CONTROL_NAMES and id(t) not in hidden_ids]
        hydrated: list[str] = []
        if plan.tool_search_controls_enabled and plan.tool_search.mode == "directory":
            hydrated = hydrate_for_prompt(hidden, prompt or "")
        entries = {}
        for tool in hidden:
            source, owner = catalog_source(tool, id(tool) in client_names)
            entry = ToolCatalogEntry(f"{source}:{owner}:{tool.name}", source, owner, tool.name,
                                     tool.description, tool.parameters, tool)
            entries[entry.id] = entry
        self._ref.current = ToolCatalog(tuple(sorted(entries.values(), key=lambda e: e.id)))
        controls = (list(self.code_mode_tools_factory(self)) if plan.code_mode_controls_enabled
                    and self.code_mode_tools_factory else self._search_controls())
        visible = [*controls, *direct, *(t for t in hidden if t.name in hydrated)]
        directory = (directory_prompt(self._ref.current.entries)
                     if plan.tool_search_controls_enabled and plan.tool_search.mode == "directory"
                     else None)
        return CompactedToolSurface(tuple(visible), len(entries), True, tuple(diagnostics),
                                    directory)

    async def execute_catalog_tool(self, id_or_name: str, input: Mapping[str, Any] | None = None,
                                   *, parent_tool_call_id: str | None = None) -> dict[str, Any]:
        """Run a hidden tool by exact id or unique name through the harness callback."""
        catalog = self._ref.current
        if catalog is None:
            raise ToolSearchInputError("Tool Search catalog is unavailable for this run.")
        entry = catalog.find(id_or_name)
        catalog.call_count += 1
        self._calls += 1
        parent = re.sub(r"[^A-Za-z0-9_.:-]+", "_", parent_tool_call_id or "direct")[:120]
        call = CatalogCall(entry.tool, entry.name, entry.source, entry.source_name,
                           f"tool_search:{parent}:{entry.name}:{self._calls}",
                           parent_tool_call_id, dict(input or {}))
        return await self.execute_tool(call)

    def cleanup(self) -> None:
        """Forget the catalog; later control calls fail instead of reaching stale tools."""
        self._ref.current = None

    def _search_controls(self) -> list[ToolSpec]:
        config = self.plan.tool_search

        def live() -> ToolCatalog:
            if self._ref.current is None:
                raise ToolSearchInputError("Tool Search catalog is unavailable for this run.")
            return self._ref.current

        async def search(args: Mapping[str, Any], ctx: ToolCallContext) -> dict[str, Any]:
            query = args.get("query")
            if not isinstance(query, str):
                raise ToolSearchInputError("query must be a string.")
            limit = args.get("limit", config.search_default_limit)
            if not isinstance(limit, int) or isinstance(limit, bool) or limit < 1:
                raise ToolSearchInputError("limit must be a positive integer.")
            hits = live().search(query, min(limit, config.max_search_limit))
            return _json_result({"tools": hits})

        async def describe(args: Mapping[str, Any], ctx: ToolCallContext) -> dict[str, Any]:
            entry = live().find(_read_id(args))
            live().describe_count += 1
            return _json_result({**entry.compact(), "parameters": dict(entry.parameters)})

        async def call(args: Mapping[str, Any], ctx: ToolCallContext) -> dict[str, Any]:
            payload = args.get("args", args.get("input", {}))
            return await self.execute_catalog_tool(
                _read_id(args), payload if isinstance(payload, Mapping) else {},
                parent_tool_call_id=ctx.call_id,
            )

        def spec(name: str, description: str, props: dict[str, Any], required: list[str],
                 run: Callable[[Mapping[str, Any], ToolCallContext], Awaitable[dict[str, Any]]],
                 ) -> ToolSpec:
            return ToolSpec(name, description, {"type": "object", "properties": props,
                                                "required": required}, run)

        return [
            spec(TOOL_SEARCH_TOOL_NAME, "Search the catalog of tools not listed directly.",
                 {"query": {"type": "string"}, "limit": {"type": "integer", "minimum": 1}},
                 ["query"], search),
            spec(TOOL_DESCRIBE_TOOL_NAME, "Show the full input schema of a catalog tool.",
                 {"id": {"type": "string"}}, ["id"], describe),
            spec(TOOL_CALL_TOOL_NAME, "Call a catalog tool by its exact id or name.",
                 {"id": {"type": "string"}, "args": {"type": "object"}}, ["id"], call),
        ]


def _read_id(args: Mapping[str, Any]) -> str:
    value = args.get("id", args.get("toolId", args.get("name")))
    if not isinstance(value, str) or not value.strip():
        raise ToolSearchInputError("id must be a non-empty string.")
    return value.strip()


def _json_result(value: Any) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": json.dumps(value, ensure_ascii=False)}],
            "details": value}


def create_agent_harness_tool_surface_runtime(
    *,
    execute_tool: CatalogToolExecutor,
    config: Mapping[str, Any] | None = None,
    agent_id: str | None = None,
    model_provider: str | None = None,
    model_id: str | None = None,
    model_compat: Mapping[str, Any] | None = None,
    base_url: str | None = None,
    tools_allow: Sequence[str] | None = None,
    model_tools_enabled: bool = True,
    disable_tools: bool = False,
    is_raw_model_run: bool = False,
    disable_tool_search: bool = False,
    code_mode_override: bool | Literal["auto"] | None = None,
    force_code_mode_controls: bool = False,
    code_mode_tools_factory: CodeModeToolsFactory | None = None,
    code_mode_control_names: Sequence[str] = ("exec", "wait"),
    supports_deferred_tool_calls: bool = True,
    force_message_tool: bool = False,
    source_reply_delivery_mode: str | None = None,
    skill_workshop_proposal_only: bool = False,
    local_model_lean: bool | None = None,
    direct_tool_names: Sequence[str] = (),
) -> AgentHarnessToolSurfaceRuntime:
    """Plan this attempt's tool surface; the harness still converts and executes tools.

    `local_model_lean=None` follows `agents.*.experimental.localModelLean` when set and
    otherwise turns lean defaults on for local models (`is_local_model`). Code mode needs
    `code_mode_tools_factory` (the harness's own sandboxed controls); without it tool
    search is used instead.
    """
    cfg: Mapping[str, Any] = config or {}
    force_direct_message = force_message_tool or source_reply_delivery_mode == "message_tool_only"
    allow = [normalize_tool_name(name) for name in tools_allow] if tools_allow is not None else None
    private_message_only = force_direct_message and allow == ["message"]
    agent = _get(cfg, "agents", "entries", agent_id) if agent_id else None
    if local_model_lean is None:
        flag = _get(agent, "experimental", "localModelLean")
        flag = flag if flag is not None else _get(cfg, "agents", "defaults", "experimental",
                                                  "localModelLean")
        local_model_lean = flag if isinstance(flag, bool) else is_local_model(model_provider, base_url)
    raw_search = _get(cfg, "tools", "toolSearch")
    if raw_search is None and local_model_lean:
        raw_search = _LEAN_SEARCH_DEFAULTS
    search = resolve_tool_search_config(False if disable_tool_search else raw_search)
    if not supports_deferred_tool_calls and search.mode == "directory":
        search = replace(search, mode="tools")
    tools_available = (model_tools_enabled and not disable_tools and not is_raw_model_run
                       and (allow is None or len(allow) > 0) and not private_message_only
                       and not skill_workshop_proposal_only)
    model_key = f"{model_provider}/{model_id}" if model_provider and model_id else None
    enabled = (code_mode_override if code_mode_override is not None
               else _code_mode_enabled(cfg, agent_id, model_key))
    engaged = enabled is True or (enabled == "auto" and _get(model_compat, "codeMode") == "preferred")
    code_mode = (tools_available and code_mode_tools_factory is not None
                 and (force_code_mode_controls or engaged))
    tool_search = tools_available and not code_mode and search.enabled
    plan = ToolSurfacePlan(tools_available, code_mode, tool_search, search, local_model_lean,
                           force_direct_message)
    controls = (sorted(_CONTROL_NAMES) if tool_search
                else list(code_mode_control_names) if code_mode else [])
    allowlist = tuple(dict.fromkeys([*allow, *controls])) if allow is not None else None
    return AgentHarnessToolSurfaceRuntime(plan, execute_tool, allowlist, tuple(direct_tool_names),
                                          code_mode_tools_factory)
