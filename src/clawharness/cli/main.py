"""The `clawharness` command line.

Each command group lives in its own module exposing `register(app)`; this module only
assembles them. Every command reaches the core through `clawharness.host.Host`.
"""

from __future__ import annotations

import importlib

import typer

__all__ = ["app"]

app = typer.Typer(
    name="clawharness",
    help="An agent-harness host: sessions, transcripts, tool policy and native agent runtimes.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

#: command modules, each with `register(app: typer.Typer) -> None`
COMMAND_MODULES = (
    "clawharness.cli.config_cmd",
    "clawharness.cli.sessions_cmd",
    "clawharness.cli.agent_cmd",
    "clawharness.cli.status_cmd",
    "clawharness.cli.doctor_cmd",
    "clawharness.cli.model_server_cmd",
    "clawharness.cli.conformance_cmd",
    "clawharness.cli.serve_cmd",
    "clawharness.cli.demo_cmd",
    "clawharness.cli.chat_cmd",
    "clawharness.cli.init_cmd",
)

for _name in COMMAND_MODULES:
    try:
        _module = importlib.import_module(_name)
    except ModuleNotFoundError as _exc:
        if _exc.name != _name:
            raise
        continue
    _module.register(app)


def main() -> None:
    app()


if __name__ == "__main__":
    main()
