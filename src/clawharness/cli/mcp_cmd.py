"""`clawharness mcp list|show|probe|tools`: the configured MCP servers (docs/mcp.md)."""

from __future__ import annotations

import logging
import sys
from typing import Annotated, Any

import typer
from rich.markup import escape

from clawharness._text import terminal_safe
from clawharness.cli.common import (
    ConfigOption,
    JsonOption,
    console,
    err_console,
    new_table,
    print_json,
    run_async,
)
from clawharness.host import Host
from clawharness.mcp.manager import McpProbe
from clawharness.mcp.specs import McpServerSpec, server_specs

__all__ = ["register"]

NameArg = Annotated[str, typer.Argument(metavar="NAME", help="The server's name in mcp.servers.")]
AgentOption = Annotated[str | None, typer.Option(
    "--agent", metavar="ID", help="Under this agent's tool policy (else the default agent).")]


def _specs(config: str | None, as_json: bool) -> tuple[McpServerSpec, ...]:
    async def go() -> tuple[McpServerSpec, ...]:
        return server_specs(Host.from_config(config).config.mcp, disabled=True)
    return run_async(go, as_json=as_json)


def _one(config: str | None, name: str, as_json: bool) -> McpServerSpec:
    async def go() -> McpServerSpec:
        host = Host.from_config(config)
        for spec in server_specs(host.config.mcp, disabled=True):
            if spec.name == name:
                return spec
        host.mcp.spec(name)  # raises McpServerNotFoundError naming the configured ones
        raise AssertionError("unreachable")
    return run_async(go, as_json=as_json)


def _show_table(spec: McpServerSpec) -> None:
    data = spec.to_json()
    table = new_table("Key", "Value", title=f"MCP server {spec.name}")
    for key, value in data.items():
        if value is None or value == [] or key == "name":
            continue
        shown = ", ".join(map(str, value)) if isinstance(value, list) else str(value)
        table.add_row(key, shown)
    console.print(table)


def _shown(text: object) -> str:
    """What a server said (names, descriptions), safe in a line of rich markup."""
    return escape(terminal_safe(str(text)))


def _probe_table(probe: McpProbe) -> None:
    info = probe.info
    console.print(f"[bold]{_shown(probe.server)}[/]: {_shown(info.name)} "
                  f"{_shown(info.version)} (protocol {_shown(info.protocol_version)})",
                  highlight=False)
    table = new_table("Step", "ms", "Found")
    found = {"tools": len(probe.tools),
             "resources": None if probe.resources is None else len(probe.resources),
             "prompts": None if probe.prompts is None else len(probe.prompts)}
    for step, ms in probe.timings_ms.items():
        count = found.get(step)
        table.add_row(step, f"{ms:.1f}", "-" if count is None else str(count))
    console.print(table)


def register(app: typer.Typer) -> None:
    group = typer.Typer(help="The configured MCP servers: list, show, probe, tools, serve.",
                        no_args_is_help=True)

    @group.command("list")
    def list_cmd(config: ConfigOption = None, as_json: JsonOption = False) -> None:
        """Every server in mcp.servers: transport, how it is reached, enabled."""
        specs = _specs(config, as_json)
        if as_json:
            print_json({"servers": [s.to_json() for s in specs]})
            return
        if not specs:
            console.print("no MCP servers configured: add one under mcp.servers.<name> "
                          "(see docs/mcp.md)", highlight=False)
            return
        table = new_table("Name", "Tool prefix", "Transport", "Launch", "Enabled",
                          title="MCP servers")
        for s in specs:
            table.add_row(s.name, f"{s.safe_name}__" if s.safe_name else "-", s.transport,
                          s.launch_summary(), "yes" if s.enabled else "no")
        console.print(table)

    @group.command("show")
    def show_cmd(name: NameArg, config: ConfigOption = None,
                 as_json: JsonOption = False) -> None:
        """One server's settings (env and header values are never shown)."""
        spec = _one(config, name, as_json)
        if as_json:
            print_json(spec.to_json())
        else:
            _show_table(spec)

    @group.command("probe")
    def probe_cmd(name: NameArg, config: ConfigOption = None,
                  as_json: JsonOption = False) -> None:
        """Connect, list tools, resources and prompts, with timings."""
        async def go() -> McpProbe:
            host = Host.from_config(config)
            try:
                return await host.mcp.probe(name)
            finally:
                await host.mcp.close()
        probe = run_async(go, as_json=as_json)
        if as_json:
            print_json(probe.to_json())
        else:
            _probe_table(probe)

    @group.command("tools")
    def tools_cmd(name: NameArg, config: ConfigOption = None, agent: AgentOption = None,
                  as_json: JsonOption = False) -> None:
        """A server's tools as the model sees them, and whether the tool policy offers each."""
        async def go() -> tuple[list[dict[str, Any]], tuple[str, ...]]:
            host = Host.from_config(config)
            policy = host.agent_tools.tool_policy(agent or host.default_agent_id())
            try:
                entries, warnings = await host.mcp.server_catalog(name)
            finally:
                await host.mcp.close()
            verdicts = [policy.check_names((e.model_name, *e.policy_names)) for e in entries]
            rows = [{"name": e.model_name, "tool": e.tool, "description": e.description,
                     "offered": why is None, "deniedBecause": why}
                    for e, why in zip(entries, verdicts, strict=True)]
            return rows, warnings
        rows, warnings = run_async(go, as_json=as_json)
        if as_json:
            print_json({"server": name, "tools": rows, "warnings": list(warnings)})
            return
        table = new_table("Model-facing name", "Tool", "Offered", "Description",
                          title=f"Tools of MCP server {name}")
        for row in rows:
            offered = ("yes" if row["offered"]
                       else f"[red]no[/]: {_shown(str(row['deniedBecause']))}")
            table.add_row(_shown(row["name"]), _shown(row["tool"]), offered,
                          _shown(row["description"][:60]))
        console.print(table)
        for warning in warnings:
            err_console.print(f"[yellow]warning[/]: {_shown(warning)}", highlight=False)

    @group.command("serve")
    def serve_cmd(config: ConfigOption = None) -> None:
        """Serve this host as a stdio MCP server: sessions_list, session_history,
        message_send (stdout carries the protocol only)."""
        from clawharness.mcp_serve import serve_stdio

        logging.basicConfig(stream=sys.stderr, level=logging.WARNING)
        run_async(lambda: serve_stdio(Host.from_config(config)), as_json=False)

    app.add_typer(group, name="mcp")
