"""`clawharness acp`: the host as an Agent Client Protocol agent over stdio (docs/acp.md)."""

from __future__ import annotations

import logging
import sys
from typing import Annotated, Literal

import typer

from clawharness.cli.common import ConfigOption, fail, run_async

__all__ = ["register"]


def register(app: typer.Typer) -> None:
    @app.command("acp")
    def acp_cmd(
        config: ConfigOption = None,
        agent: Annotated[str | None, typer.Option(
            "--agent", metavar="ID",
            help="The agent of new sessions (else the default agent; a client may name "
                 "another in _meta.agentId).")] = None,
        mode: Annotated[str, typer.Option(
            "--mode", metavar="MODE",
            help="The mode new sessions start in: default, ask or read-only.")] = "default",
        workspace: Annotated[str, typer.Option(
            "--workspace", metavar="WHERE",
            help="Where a session's tools work: cwd (the client's working directory, an "
                 "editor's project) or agent (the agent's configured workspace).")] = "cwd",
        client_tools: Annotated[bool, typer.Option(
            "--client-tools/--no-client-tools",
            help="Read, write and edit files and run exec through the client's fs/* and "
                 "terminal/* when it offers them.")] = True,
        unstable: Annotated[bool, typer.Option(
            "--unstable",
            help="Also serve session/resume and session/close (unstable in the protocol "
                 "library this host uses).")] = False,
        verbose: Annotated[bool, typer.Option(
            "--verbose", "-v", help="Log each session opened and prompt run to stderr.")] = False,
    ) -> None:
        """Serve the host as an Agent Client Protocol agent over stdio, for editors (Zed,
        JetBrains, VS Code) and ACP clients such as acpx.

        stdout carries the protocol only; logs go to stderr. An editor starts it as its
        agent command, e.g. `clawharness acp --config ~/.clawharness/config.json5`.
        """
        from clawharness.acp_serve import AcpServeOptions, known_mode, serve_stdio
        from clawharness.errors import ConfigError
        from clawharness.host import Host

        if known_mode(mode) is None:
            raise fail(ConfigError(f"--mode {mode!r} is no session mode: choose default, "
                                   "ask or read-only"), as_json=False)
        if workspace not in ("cwd", "agent"):
            raise fail(ConfigError(f"--workspace {workspace!r}: choose cwd or agent"),
                       as_json=False)
        where: Literal["cwd", "agent"] = "cwd" if workspace == "cwd" else "agent"
        logging.basicConfig(stream=sys.stderr,
                            level=logging.INFO if verbose else logging.WARNING)
        options = AcpServeOptions(agent_id=agent, mode=mode, workspace=where,
                                  unstable=unstable, client_tools=client_tools)

        async def go() -> None:
            host = Host.from_config(config)
            if agent is not None:
                from clawharness.sessions.agents import require_known_agent

                require_known_agent(host.config, agent)
            await serve_stdio(host, options)

        run_async(go, as_json=False)
