"""`clawharness serve`: OpenClaw's gateway protocol (v4) over this host, for its clients."""

from __future__ import annotations

from typing import Annotated

import typer

from clawharness.cli.common import ClusterOption, ConfigOption

__all__ = ["register"]

PortOption = Annotated[
    int | None, typer.Option("--port", help="Port (else gateway.port, default 18789; 0 picks one).")
]
BindOption = Annotated[
    str | None, typer.Option("--bind", help="loopback (default), lan, or an address.")
]
TokenOption = Annotated[
    str | None, typer.Option("--token", help="Shared token (else gateway.auth.token, "
                                              "CLAWHARNESS_GATEWAY_TOKEN, OPENCLAW_GATEWAY_TOKEN).")
]
TickOption = Annotated[
    int | None, typer.Option("--tick-interval-ms", hidden=True, help="Tick interval (tests).")
]


def register(app: typer.Typer) -> None:
    @app.command("serve")
    def serve(config: ConfigOption = None, port: PortOption = None, bind: BindOption = None,
              token: TokenOption = None, tick_interval_ms: TickOption = None,
              cluster: ClusterOption = None) -> None:
        """Serve the gateway protocol so `openclaw agent`, `openclaw tui` ... can drive turns."""
        import asyncio

        from clawharness.cli.common import err_console, fail
        from clawharness.errors import ClawHarnessError
        from clawharness.gateway.run import serve_gateway

        try:
            asyncio.run(serve_gateway(config, port=port, bind=bind, token=token,
                                      tick_interval_ms=tick_interval_ms, cluster_url=cluster,
                                      announce=lambda line: typer.echo(line)))
        except ClawHarnessError as exc:
            raise fail(exc, as_json=False) from None
        except OSError as exc:
            err_console.print(f"[bold red]error[/]: cannot listen: {exc.strerror or exc}",
                              highlight=False)
            raise typer.Exit(1) from None
        except KeyboardInterrupt:
            raise typer.Exit(130) from None
