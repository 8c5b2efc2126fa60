"""The config file's shape: openclaw.json's camelCase keys, as pydantic models.

An existing openclaw-style config loads as it is. Unknown keys are kept (and reported
as warnings by the loader), so a newer file never fails on an older host. Values that
start-up would refuse are refused here, by the validators in `clawharness.config.checks`.
"""

from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, field_validator, model_validator

from clawharness.config._factories import made, no_entries
from clawharness.config.checks import (
    CheckFailed,
    bind_host,
    check_base_url,
    check_bind,
    check_cluster_url,
    check_store_url,
    check_tool_policy_entry,
    check_tool_profile,
    is_loopback_host,
)
from clawharness.config.context import CompactionConfig, ContextPruningConfig, overlay
from clawharness.config.sandbox import SandboxConfig
from clawharness.config.spend import BudgetsConfig, LoopDetectionConfig, ModelCost

__all__ = [
    "AgentDefaults",
    "AgentEntry",
    "AgentModelEntry",
    "AgentRuntimeRef",
    "ClawConfig",
    "ClusterConfig",
    "ClusterTlsConfig",
    "DiagnosticsConfig",
    "ExecToolConfig",
    "GatewayConfig",
    "HostConfig",
    "McpConfig",
    "McpServerConfig",
    "McpToolFilter",
    "MetricsConfig",
    "ModelRefSetting",
    "OtelConfig",
    "PluginEntry",
    "PluginsConfig",
    "ProviderConfig",
    "ProviderModel",
    "QueueConfig",
    "QueueMode",
    "RuntimePolicyConfig",
    "SessionsConfig",
    "StoreConfig",
    "SubagentsConfig",
    "ThinkingLevel",
    "ToolsConfig",
    "agent_compaction",
    "agent_context_pruning",
]

ProviderApi = Literal[
    "openai-responses", "openai-chatgpt-responses", "openai-completions", "anthropic-messages",
    "scripted",
]


BaseUrl = Annotated[str | None, AfterValidator(check_base_url)]
ToolPolicyEntry = Annotated[str, AfterValidator(check_tool_policy_entry)]
PositiveInt = Annotated[int, Field(ge=1)]
PositiveSeconds = Annotated[float, Field(gt=0, allow_inf_nan=False)]


class _Node(BaseModel):
    model_config = ConfigDict(extra="allow", populate_by_name=True, frozen=False)


def _empty() -> list[Any]:
    """An empty list: the default of the list fields. (Given `list` itself, pydantic reads
    its signature from its text, tokenizing it: ~18 M instructions of every process
    that builds this schema.)"""
    return []


class AgentRuntimeRef(_Node):
    """`agentRuntime: {id}`: the runtime policy at one scope."""

    id: str | None = None


class RuntimePolicyConfig(_Node):
    """A provider route's declared runtime compatibility (absent = undeclared)."""

    compatible_ids: list[str] = Field(default_factory=_empty, alias="compatibleIds")


class ProviderModel(_Node):
    id: str
    name: str | None = None
    #: per-model transport overrides, as the original allows
    api: ProviderApi | None = None
    base_url: BaseUrl = Field(default=None, alias="baseUrl")
    agent_runtime: AgentRuntimeRef | None = Field(default=None, alias="agentRuntime")
    context_window: PositiveInt | None = Field(default=None, alias="contextWindow")
    max_tokens: PositiveInt | None = Field(default=None, alias="maxTokens")
    params: dict[str, Any] | None = None
    headers: dict[str, str] | None = None
    #: whether the model reasons (OpenClaw's catalog flag): false takes only thinking `off`
    reasoning: bool | None = None
    #: USD per million tokens (OpenClaw's shape); overrides the price table
    cost: ModelCost | None = None


class ProviderConfig(_Node):
    base_url: BaseUrl = Field(default=None, alias="baseUrl")
    api: ProviderApi | None = None
    api_key: str | None = Field(default=None, alias="apiKey")
    headers: dict[str, str] | None = None
    agent_runtime: AgentRuntimeRef | None = Field(default=None, alias="agentRuntime")
    runtime_policy: RuntimePolicyConfig | None = Field(default=None, alias="runtimePolicy")
    request: dict[str, Any] | None = None
    models: list[ProviderModel] = Field(default_factory=_empty)
    #: the price of every model of this provider a model row does not price itself
    cost: ModelCost | None = None


class ModelsConfig(_Node):
    providers: dict[str, ProviderConfig] = Field(default_factory=no_entries)


class ModelRefSetting(_Node):
    """`model: {primary, fallbacks}` (a bare string is accepted too)."""

    primary: str | None = None
    fallbacks: list[str] = Field(default_factory=_empty)


class AgentModelEntry(_Node):
    """`agents.*.models[ref]`: per-model settings for an agent."""

    agent_runtime: AgentRuntimeRef | None = Field(default=None, alias="agentRuntime")
    alias: str | None = None
    params: dict[str, Any] | None = None


def _coerce_model_setting(value: Any) -> Any:
    if isinstance(value, str):
        return {"primary": value}
    return value


#: what happens to a message for a session whose turn is running (OpenClaw's
#: `queue.mode`; docs/steering.md): `steer` it into the running turn at its next tool
#: boundary (the default), run it as the next turn (`followup`), make the queued
#: messages one next turn (`collect`), or abort the running turn and run it (`interrupt`)
QueueMode = Literal["steer", "followup", "collect", "interrupt"]


class QueueConfig(_Node):
    """`agents.defaults.queue` / `agents.entries.<id>.queue`."""

    mode: QueueMode | None = None


#: how hard a reasoning model thinks (OpenClaw's levels; `clawharness.models.thinking`
#: maps them per provider and model, docs/thinking.md)
ThinkingLevel = Literal["off", "minimal", "low", "medium", "high", "xhigh"]


class SubagentsConfig(_Node):
    """`agents.defaults.subagents`: the limits on child sessions `sessions_spawn` starts
    (OpenClaw's names and defaults; docs/portable-sessions.md, "Sub-agents")."""

    #: how deep children may nest: a session at this depth cannot spawn (1: only
    #: top-level sessions spawn; the original allows 1..5, default 5)
    max_spawn_depth: int = Field(default=5, ge=1, le=5, alias="maxSpawnDepth")
    #: active (queued or running) children of one session at once
    max_children_per_agent: int = Field(default=5, ge=1, le=20, alias="maxChildrenPerAgent")
    #: child turns running at once in one host; the rest wait, queued
    max_concurrent: PositiveInt = Field(default=8, alias="maxConcurrent")
    #: a child's turn timeout when the spawn names none (0: none)
    run_timeout_seconds: int = Field(default=0, ge=0, alias="runTimeoutSeconds")
    #: other agents a session may spawn children of (`*`: any); its own always
    allow_agents: list[str] = Field(default_factory=_empty, alias="allowAgents")
    #: the model children run on when the spawn names none (default: the parent's)
    model: str | None = None


class AgentDefaults(_Node):
    model: ModelRefSetting | None = None
    models: dict[str, AgentModelEntry] = Field(default_factory=no_entries)
    workspace: str | None = None
    #: legacy whole-agent runtime: ignored by selection, reported by doctor
    agent_runtime: AgentRuntimeRef | None = Field(default=None, alias="agentRuntime")
    max_steps: PositiveInt | None = Field(default=None, alias="maxSteps")
    timeout_seconds: PositiveSeconds | None = Field(default=None, alias="timeoutSeconds")
    system_prompt: str | None = Field(default=None, alias="systemPrompt")
    sandbox: SandboxConfig | None = None
    queue: QueueConfig | None = None
    #: summarising the oldest history before the prompt overflows (docs/compaction.md)
    compaction: CompactionConfig = Field(default_factory=made(CompactionConfig))
    #: shortening old tool results in the prompt, never in the store
    context_pruning: ContextPruningConfig = Field(default_factory=made(ContextPruningConfig),
                                                  alias="contextPruning")
    thinking_default: ThinkingLevel | None = Field(default=None, alias="thinkingDefault")
    subagents: SubagentsConfig = Field(default_factory=made(SubagentsConfig))

    _model = field_validator("model", mode="before")(_coerce_model_setting)


class ExecToolConfig(_Node):
    security: Literal["deny", "allowlist", "full"] = "allowlist"
    ask: Literal["off", "on-miss", "always"] = "on-miss"
    allowlist: list[str] = Field(default_factory=_empty)
    timeout_sec: PositiveSeconds = Field(default=60.0, alias="timeoutSec")
    max_output_chars: PositiveInt = Field(default=20_000, alias="maxOutputChars")


class WebFetchConfig(_Node):
    enabled: bool = False


class WebToolsConfig(_Node):
    fetch: WebFetchConfig = Field(default_factory=made(WebFetchConfig))


class ToolsConfig(_Node):
    #: an unknown profile would restrict nothing, so it is refused (fail closed)
    profile: Annotated[str | None, AfterValidator(check_tool_profile)] = None
    allow: list[ToolPolicyEntry] | None = None
    deny: list[ToolPolicyEntry] = Field(default_factory=_empty)
    also_allow: list[ToolPolicyEntry] = Field(default_factory=_empty, alias="alsoAllow")
    exec: ExecToolConfig = Field(default_factory=made(ExecToolConfig))
    web: WebToolsConfig = Field(default_factory=made(WebToolsConfig))
    loop_detection: LoopDetectionConfig = Field(default_factory=made(LoopDetectionConfig),
                                                alias="loopDetection")


class AgentEntry(_Node):
    default: bool = False
    name: str | None = None
    model: ModelRefSetting | None = None
    models: dict[str, AgentModelEntry] = Field(default_factory=no_entries)
    workspace: str | None = None
    agent_runtime: AgentRuntimeRef | None = Field(default=None, alias="agentRuntime")
    tools: ToolsConfig | None = None
    system_prompt: str | None = Field(default=None, alias="systemPrompt")
    sandbox: SandboxConfig | None = None
    queue: QueueConfig | None = None
    #: this agent's compaction and pruning keys, over `agents.defaults`' key by key
    #: (`clawharness.config.context.agent_compaction`; docs/compaction.md)
    compaction: CompactionConfig | None = None
    context_pruning: ContextPruningConfig | None = Field(default=None, alias="contextPruning")
    thinking_default: ThinkingLevel | None = Field(default=None, alias="thinkingDefault")

    _model = field_validator("model", mode="before")(_coerce_model_setting)


class AgentsConfig(_Node):
    defaults: AgentDefaults = Field(default_factory=made(AgentDefaults))
    entries: dict[str, AgentEntry] = Field(default_factory=no_entries)


def agent_compaction(agents: AgentsConfig, agent_id: str) -> CompactionConfig:
    """`agents.entries.<agent_id>.compaction` over `agents.defaults.compaction`."""
    entry = agents.entries.get(agent_id)
    base = agents.defaults.compaction
    return base if entry is None else overlay(base, entry.compaction)


def agent_context_pruning(agents: AgentsConfig, agent_id: str) -> ContextPruningConfig:
    """`agents.entries.<agent_id>.contextPruning` over `agents.defaults.contextPruning`."""
    entry = agents.entries.get(agent_id)
    base = agents.defaults.context_pruning
    return base if entry is None else overlay(base, entry.context_pruning)


class PluginEntry(_Node):
    enabled: bool = True
    config: dict[str, Any] = Field(default_factory=no_entries)
    module: str | None = None


class PluginsConfig(_Node):
    allow: list[str] | None = None
    deny: list[str] = Field(default_factory=_empty)
    entries: dict[str, PluginEntry] = Field(default_factory=no_entries)
    #: extra plugins to load by module path (`package.module` or `package.module:entry`)
    load: list[str] = Field(default_factory=_empty)


class GatewayAuthConfig(_Node):
    mode: Literal["token", "none"] = "token"
    token: str | None = None


#: the original's default request body limit for its OpenAI-compatible endpoints
DEFAULT_HTTP_MAX_BODY_BYTES = 20 * 1024 * 1024


class GatewayHttpEndpointConfig(_Node):
    """One OpenAI-compatible endpoint (`gateway.http.endpoints.<name>`): off by default."""

    enabled: bool = False
    max_body_bytes: int = Field(default=DEFAULT_HTTP_MAX_BODY_BYTES, ge=1024,
                                le=256 * 1024 * 1024, alias="maxBodyBytes")


class GatewayHttpEndpointsConfig(_Node):
    chat_completions: GatewayHttpEndpointConfig = Field(
        default_factory=made(GatewayHttpEndpointConfig), alias="chatCompletions")
    responses: GatewayHttpEndpointConfig = Field(default_factory=made(GatewayHttpEndpointConfig))


class GatewayHttpConfig(_Node):
    endpoints: GatewayHttpEndpointsConfig = Field(default_factory=made(GatewayHttpEndpointsConfig))


class GatewayControlUiConfig(_Node):
    """The browser Control UI at `/` on the gateway's port."""

    enabled: bool = True


class GatewayConfig(_Node):
    port: int = Field(default=18789, ge=0, le=65535)
    bind: Annotated[str, AfterValidator(check_bind)] = "loopback"
    auth: GatewayAuthConfig = Field(default_factory=made(GatewayAuthConfig))
    http: GatewayHttpConfig = Field(default_factory=made(GatewayHttpConfig))
    control_ui: GatewayControlUiConfig = Field(default_factory=made(GatewayControlUiConfig),
                                               alias="controlUi")

    @model_validator(mode="after")
    def _auth_beyond_loopback(self) -> "GatewayConfig":
        host = bind_host(self.bind)
        if self.auth.mode == "none" and host is not None and not is_loopback_host(host):
            raise CheckFailed(
                f'auth.mode "none" with bind {self.bind!r} would open the gateway to the '
                "network without auth, so it is refused", code="gateway-open-without-auth",
                hint='set auth.mode "token" with auth.token, or bind "loopback"',
                show_value=False)
        return self


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


class AuthConfig(_Node):
    profiles: dict[str, dict[str, Any]] = Field(default_factory=no_entries)
    order: dict[str, list[str]] = Field(default_factory=no_entries)


class LoggingConfig(_Node):
    #: subsystems with debug records on, e.g. ["agents/harness"]
    debug: list[str] = Field(default_factory=_empty)


class HostConfig(_Node):
    #: raise the garbage collector's thresholds while a host runs (see clawharness._gc)
    tune_gc: bool = Field(default=True, alias="tuneGc")


McpTransport = Literal["stdio", "streamable-http", "sse"]


class McpToolFilter(_Node):
    """`mcp.servers.<name>.tools`: which of a server's tools are offered (globs)."""

    include: list[str] | None = None
    exclude: list[str] = Field(default_factory=_empty)


class McpServerConfig(_Node):
    """`mcp.servers.<name>`: one MCP server (stdio: `command`; HTTP/SSE: `url`).

    `env` and `headers` values may be `${ENV_VAR}` references, read when the server
    starts; both are secret-bearing keys, never shown in messages.
    """

    transport: McpTransport | None = None
    command: str | None = None
    args: list[str] = Field(default_factory=_empty)
    env: dict[str, str] = Field(default_factory=no_entries)
    cwd: str | None = None
    url: str | None = None
    headers: dict[str, str] = Field(default_factory=no_entries)
    enabled: bool = True
    connection_timeout_ms: int = Field(default=30_000, ge=1, le=600_000,
                                       alias="connectionTimeoutMs")
    tool_timeout_ms: int = Field(default=60_000, ge=1, le=3_600_000, alias="toolTimeoutMs")
    max_result_chars: PositiveInt = Field(default=100_000, alias="maxResultChars")
    tools: McpToolFilter = Field(default_factory=made(McpToolFilter))

    @model_validator(mode="after")
    def _one_transport(self) -> "McpServerConfig":
        if self.transport is None and not self.command and not self.url:
            raise CheckFailed("an MCP server needs `command` (stdio) or `url` "
                              "(streamable-http, sse)", code="mcp-server-invalid",
                              show_value=False)
        transport = self.transport or ("stdio" if self.command else "streamable-http")
        if transport == "stdio" and not self.command:
            raise CheckFailed("a stdio MCP server needs `command`", code="mcp-server-invalid",
                              hint='set command (and args), or transport "streamable-http" '
                                   "with url", show_value=False)
        if transport != "stdio" and not self.url:
            raise CheckFailed(f"a {transport} MCP server needs `url`",
                              code="mcp-server-invalid",
                              hint="set url, or command for a stdio server", show_value=False)
        if transport != "stdio" and self.url and not self.url.startswith(("http://", "https://")):
            raise CheckFailed("an MCP server url must start with http:// or https://",
                              code="mcp-server-invalid", show_value=False)
        self.transport = transport
        return self


class McpConfig(_Node):
    servers: dict[str, McpServerConfig] = Field(default_factory=no_entries)
OtelProtocol = Literal["http/protobuf", "grpc"]


class OtelConfig(_Node):
    """`diagnostics.otel`: OpenTelemetry export (docs/observability.md). Unset keys fall
    back to the standard `OTEL_*` environment variables."""

    #: None: on when `OTEL_EXPORTER_OTLP_ENDPOINT` (or the traces one) is set
    enabled: bool | None = None
    #: the OTLP base URL (`/v1/traces` and `/v1/metrics` are added), e.g. http://127.0.0.1:4318
    endpoint: str | None = None
    protocol: OtelProtocol | None = None
    #: sent with every export (credentials: never shown, never logged)
    headers: dict[str, str] | None = None
    service_name: str | None = Field(default=None, alias="serviceName")
    #: the share of root traces kept, 0..1 (a child follows its parent's decision)
    sample_rate: float | None = Field(default=None, ge=0, le=1, alias="sampleRate")
    #: record prompts, replies and tool arguments/results on spans (redacted)
    capture_content: bool = Field(default=False, alias="captureContent")
    #: export metrics by OTLP too (when traces are exported)
    metrics: bool = True


class MetricsConfig(_Node):
    """`diagnostics.metrics`: the host's counters and histograms (served at the
    gateway's `/metrics`, exported by OTLP when `diagnostics.otel` is on)."""

    #: None: on when the host serves the gateway or exports by OTLP, else off
    enabled: bool | None = None


class DiagnosticsConfig(_Node):
    otel: OtelConfig = Field(default_factory=made(OtelConfig))
    metrics: MetricsConfig = Field(default_factory=made(MetricsConfig))


class ClawConfig(_Node):
    """The whole config file."""

    models: ModelsConfig = Field(default_factory=made(ModelsConfig))
    agents: AgentsConfig = Field(default_factory=made(AgentsConfig))
    plugins: PluginsConfig = Field(default_factory=made(PluginsConfig))
    tools: ToolsConfig = Field(default_factory=made(ToolsConfig))
    gateway: GatewayConfig = Field(default_factory=made(GatewayConfig))
    store: StoreConfig = Field(default_factory=made(StoreConfig))
    cluster: ClusterConfig = Field(default_factory=made(ClusterConfig))
    sessions: SessionsConfig = Field(default_factory=made(SessionsConfig))
    auth: AuthConfig = Field(default_factory=made(AuthConfig))
    logging: LoggingConfig = Field(default_factory=made(LoggingConfig))
    host: HostConfig = Field(default_factory=made(HostConfig))
    mcp: McpConfig = Field(default_factory=made(McpConfig))
    diagnostics: DiagnosticsConfig = Field(default_factory=made(DiagnosticsConfig))
    budgets: BudgetsConfig = Field(default_factory=made(BudgetsConfig))


AgentEntry.model_rebuild()
