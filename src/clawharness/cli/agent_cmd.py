"""`clawharness agent -m TEXT`: run one turn, stream the reply."""

from __future__ import annotations

import asyncio
import signal
import sys
from typing import Annotated

import typer
from rich.markup import escape

from clawharness.attempt.turn import TurnOptions, TurnResult
from clawharness.cli.common import (
    ConfigOption,
    JsonOption,
    console,
    err_console,
    fail,
    print_json,
    run_async,
)
from clawharness.host import Host

__all__ = ["register"]


def register(app: typer.Typer) -> None:
    @app.command("agent")
    def agent(
        message: Annotated[str, typer.Option("--message", "-m", help="The user message.")],
        config: ConfigOption = None,
        session: Annotated[str | None, typer.Option("--session", "-s", help="Session key or name.")] = None,
        model: Annotated[str | None, typer.Option("--model", help="Model ref, e.g. openai/gpt-5.")] = None,
        timeout: Annotated[float | None, typer.Option(help="Give up after N seconds.")] = None,
        as_json: JsonOption = False,
    ) -> None:
        """Run one agent turn. Continuing the same --session continues the conversation."""
        streamed: list[str] = []

        def on_partial(text: str) -> None:
            # partial replies are cumulative: print only what is new
            if not as_json:
                shown = streamed[0] if streamed else ""
                if text.startswith(shown):
                    sys.stdout.write(text[len(shown):])
                    sys.stdout.flush()
                streamed[:] = [text]

        async def go() -> TurnResult:
            from clawharness.harness.user_input_delivery import TerminalUserInputChannel
            from clawharness.tools.approvals import TerminalApprovalGate

            abort = asyncio.Event()
            loop = asyncio.get_running_loop()
            try:
                loop.add_signal_handler(signal.SIGINT, abort.set)
            except (NotImplementedError, RuntimeError):
                pass
            async with Host.from_config(config) as host:
                opts = TurnOptions(model=model, on_partial_reply=on_partial, abort=abort,
                                   approvals=TerminalApprovalGate(), timeout=timeout,
                                   user_input=TerminalUserInputChannel())
                return await host.run_turn(session, message, opts)

        result = run_async(go, as_json=as_json)
        if as_json:
            if result.terminal == "failed":
                print_json({"error": {"type": "turn_failed", "message": result.error or "failed"},
                            **result.to_json()})
                raise typer.Exit(1)
            print_json(result.to_json())
            if result.terminal != "ok":
                raise typer.Exit(1)
            return
        if streamed:
            sys.stdout.write("\n")
        elif result.text:
            console.print(result.text, highlight=False, markup=False)
        for call in result.tool_calls:
            mark = "[green]ok[/]" if call["ok"] else "[red]failed[/]"
            console.print(f"[dim]tool[/] {call['name']} {mark}", highlight=False)
        for warning in result.warnings:
            err_console.print("[yellow]warning[/] " + escape(warning), highlight=False)
        console.print(f"[dim]{result.session_key} · runtime {result.runtime} ({result.selected_reason}) · "
                      f"{result.terminal} · {result.duration_ms:.0f} ms[/]", highlight=False)
        if result.terminal != "ok":
            raise fail(RuntimeError(result.error or result.terminal), as_json=False)
