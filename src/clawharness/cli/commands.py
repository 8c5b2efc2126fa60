"""What the root command is, without typer: its help, its options and its commands.

`clawharness.cli.main` builds the command line from these; `clawharness.cli.root_help`
draws `clawharness --help` from them without importing typer (the executable answers
`--help` that way). `tests/cli/test_lazy_commands.py` and `tests/cli/test_root_help.py`
hold them to what typer builds from the command modules.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["COMMANDS", "ROOT_HELP", "ROOT_OPTIONS", "LazyCommand", "RootOption"]

ROOT_HELP = "An agent-harness host: sessions, transcripts, tool policy and native agent runtimes."


@dataclass(frozen=True, slots=True)
class LazyCommand:
    """A command (or command group) of the root, not imported yet."""

    name: str
    #: the module whose `register(app: typer.Typer)` adds this command (it may add others)
    module: str
    #: what the root's help lists beside the name: the first paragraph of its help
    summary: str


@dataclass(frozen=True, slots=True)
class RootOption:
    """One option of the root command, as its help shows it."""

    long: str
    short: str = ""
    #: the value it takes (`<text|json>`); empty for a flag
    metavar: str = ""
    help: str = ""
    envvar: str | None = None


#: the root's options in the order its help lists them (`main._root`, then help)
ROOT_OPTIONS = (
    RootOption("--version", "-V", help="Print the version and exit."),
    RootOption("--log-format", metavar="<text|json>",
               help="Log lines on stderr: text, or json (one object per line, with trace and "
                    "span ids); every line redacted. Level: CLAWHARNESS_LOG_LEVEL.",
               envvar="CLAWHARNESS_LOG_FORMAT"),
    RootOption("--help", "-h", help="Show this message and exit."),
)

#: the root's commands in the order its help lists them (commands, then groups), each
#: imported from its module only when used (`clawharness.cli.lazy`); a module's
#: `register(app)` defines the commands it is named for
COMMANDS = (
    LazyCommand("agent", "clawharness.cli.agent_cmd",
                "Run one agent turn. Continuing the same --session continues the conversation."),
    LazyCommand("status", "clawharness.cli.status_cmd",
                "Show which runtime each agent/model (and session) would run on, and why."),
    LazyCommand("doctor", "clawharness.cli.doctor_cmd",
                "Report legacy refs, ignored whole-agent runtimes, unknown runtimes, plugins "
                "that\nfailed to load; --fix repairs what is safe."),
    LazyCommand("model-server", "clawharness.cli.model_server_cmd",
                "Serve scripted OpenAI (Responses, Chat Completions) and Anthropic Messages "
                "answers\non loopback, offline, until Ctrl-C or SIGTERM."),
    LazyCommand("serve", "clawharness.cli.serve_cmd",
                "Serve the gateway protocol so `openclaw agent`, `openclaw tui` ... can drive "
                "turns."),
    LazyCommand("acp", "clawharness.cli.acp_cmd",
                "Serve the host as an Agent Client Protocol agent over stdio, for editors "
                "(Zed,\nJetBrains, VS Code) and ACP clients such as acpx."),
    LazyCommand("demo", "clawharness.cli.demo_cmd",
                "Run a short offline agent session end to end and show its transcript."),
    LazyCommand("chat", "clawharness.cli.chat_cmd",
                "Chat with the agent in the terminal: streamed replies, tools, approvals, "
                "/commands."),
    LazyCommand("init", "clawharness.cli.init_cmd",
                "Write a starter config: a real provider (key read from the environment) or "
                "offline."),
    LazyCommand("worker", "clawharness.cli.worker_cmd",
                "Run turns for the cluster until SIGTERM or Ctrl-C. Needs the PostgreSQL store."),
    LazyCommand("usage", "clawharness.cli.usage_cmd",
                "Show what turns spent (tokens, USD, time) by day, agent, session, model,\n"
                "runtime or caller."),
    LazyCommand("config", "clawharness.cli.config_cmd",
                "Inspect, check and edit the config file."),
    LazyCommand("sessions", "clawharness.cli.sessions_cmd",
                "List, show, reset, compact, delete, fork, adopt and hand off sessions; "
                "list and kill sub-agents."),
    LazyCommand("transcript", "clawharness.cli.sessions_cmd", "Search transcripts."),
    LazyCommand("models", "clawharness.cli.models_cmd", "List the configured models."),
    LazyCommand("conformance", "clawharness.cli.conformance_cmd",
                "Run recorded conformance vectors."),
    LazyCommand("mcp", "clawharness.cli.mcp_cmd",
                "The configured MCP servers: list, show, probe, tools, serve."),
    LazyCommand("cluster", "clawharness.cli.cluster_cmd",
                "The Temporal cluster this host submits turns to."),
    LazyCommand("sandbox", "clawharness.cli.sandbox_cmd",
                "Where exec runs: the OS sandbox of each agent."),
)
