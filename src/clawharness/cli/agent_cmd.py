"""`clawharness agent -m TEXT`: run one turn, stream the reply."""

from __future__ import annotations

import asyncio
import signal
import sys
from typing import Annotated

import typer
from rich.markup import escape

from clawharness._text import terminal_safe, terminal_safe_prefix
from clawharness.attempt.turn import TurnOptions
from clawharness.cli.common import (
    ClusterOption,
    ConfigOption,
    ErrorReport,
    JsonOption,
    console,
    err_console,
    fail,
    print_json,
    run_async,
)
from clawharness.errors import ClawHarnessError
from clawharness.host import Host
from clawharness.records.turn_result import TurnResult

__all__ = ["register", "turn_error"]


def turn_error(result: TurnResult) -> ErrorReport | None:
    """The error envelope of a turn that did not end `ok` (None when it did)."""
    if result.terminal == "ok":
        return None
    details = {k: v for k, v in (result.error_details or {}).items() if k != "type"}
    return ErrorReport(result.error_type or result.terminal,
                       result.error or f"the turn ended {result.terminal}", details)


def register(app: typer.Typer) -> None:
    @app.command("agent")
    def agent(
        message: Annotated[str, typer.Option("--message", "-m", metavar="TEXT",
                                             help="The user message.")],
        config: ConfigOption = None,
        cluster: ClusterOption = None,
        session: Annotated[str | None, typer.Option("--session", "-s", metavar="KEY",
                                                    help="Session key or name.")] = None,
        model: Annotated[str | None, typer.Option("--model", metavar="REF",
                                                  help="Model ref, e.g. openai/gpt-5.")] = None,
        thinking: Annotated[str | None, typer.Option(
            "--thinking", metavar="LEVEL",
            help="Thinking level for this message: off, minimal, low, medium, high, "
                 "xhigh.")] = None,
        timeout: Annotated[float | None, typer.Option(metavar="SECONDS",
                                                      help="Give up after N seconds.")] = None,
        queue_mode: Annotated[str | None, typer.Option(
            "--queue-mode", metavar="MODE",
            help="If a turn of the session is running (here or in another process, a "
                 "chat's): steer, followup, collect or interrupt (default: the "
                 "agent's queue.mode, steer).")] = None,
        as_json: JsonOption = False,
        local: Annotated[bool, typer.Option(
            "--local", help="Run the turn in this process even when a clawharness serve "
                            "of the same config is running (by default the turn goes "
                            "there).")] = False,
    ) -> None:
        """Run one agent turn. Continuing the same --session continues the conversation.

        With a `clawharness serve` of the same config running, the turn runs there."""
        from clawharness.sessions.queue import parse_queue_mode

        try:
            mode = parse_queue_mode(queue_mode)
        except ClawHarnessError as exc:
            raise fail(exc, as_json=as_json) from None
        level: str | None = None
        if thinking is not None:
            from clawharness.models import ThinkingLevelError, parse_thinking_level

            try:
                level = parse_thinking_level(thinking)
            except ThinkingLevelError as exc:
                raise fail(exc, as_json=as_json) from None
        if not local:
            from clawharness.cli import via_serve

            if not via_serve.tried():
                code = via_serve.run_via_serve(via_serve.AgentRequest(
                    message=message, session=session, config=config, cluster=cluster,
                    model=model, thinking=level, timeout=timeout, queue_mode=mode,
                    as_json=as_json))
                if code is not None:
                    raise typer.Exit(code)
        streamed: list[str] = []

        def on_partial(text: str) -> None:
            # `text` is the assistant message so far: print only what is new,
            # terminal-safe and short of an escape sequence not complete yet (removed
            # whole once it is). A text that does not continue the last one is the next
            # message of the turn (after tool calls): it is printed whole, on a new line.
            shown = streamed[0] if streamed else ""
            safe = terminal_safe_prefix(text)
            if safe.startswith(shown):
                sys.stdout.write(safe[len(shown):])
            else:
                held = terminal_safe(streamed[1])  # the end of the last message
                if held.startswith(shown):
                    sys.stdout.write(held[len(shown):])
                sys.stdout.write("\n" + safe)
            sys.stdout.flush()
            streamed[:] = [safe, text]

        async def go() -> tuple[TurnResult, str]:
            from clawharness.harness.user_input_delivery import TerminalUserInputChannel
            from clawharness.tools.approvals import TerminalApprovalGate

            abort = asyncio.Event()
            loop = asyncio.get_running_loop()
            try:
                loop.add_signal_handler(signal.SIGINT, abort.set)
            except (NotImplementedError, RuntimeError):
                pass
            async with Host.from_config(config, cluster_url=cluster) as host:
                # --json prints the result alone: no partial replies asked for (on a
                # cluster, none are relayed)
                opts = TurnOptions(model=model, abort=abort, thinking=level, queue_mode=mode,
                                   on_partial_reply=None if as_json else on_partial,
                                   approvals=TerminalApprovalGate(), timeout=timeout,
                                   user_input=TerminalUserInputChannel())
                result = await host.run_turn(session, message, opts)
                # --json prints the result alone: no explanation needed
                return result, "" if as_json else await host.explain_turn(result)

        result, why = run_async(go, as_json=as_json)
        error = turn_error(result)
        if as_json:
            if error is not None:
                raise fail(error, as_json=True, extra=result.to_json())
            print_json(result.to_json())
            return
        if streamed:
            rest = terminal_safe(streamed[1])
            if rest.startswith(streamed[0]):  # what an unfinished sequence held back
                sys.stdout.write(rest[len(streamed[0]):])
            sys.stdout.write("\n")
        elif result.text:
            console.print(terminal_safe(result.text), highlight=False, markup=False)
        for call in result.tool_calls:
            mark = "[red]failed[/]" if call.is_error else "[green]ok[/]"
            name = escape(terminal_safe(call.tool_name))
            console.print(f"[dim]tool[/] {name} {mark}", highlight=False)
            if call.is_error and call.error:
                console.print(f"  [dim]{escape(terminal_safe(call.error))}[/]",
                              highlight=False)
        for warning in result.warnings:
            err_console.print("[yellow]warning[/] " + escape(warning), highlight=False)
        console.print(f"[dim]{result.session_key} · {result.terminal} · "
                      f"{result.duration_ms:.0f} ms[/]", highlight=False)
        console.print(f"[dim]{escape(why)}[/]", highlight=False)
        if error is not None:
            raise fail(error, as_json=False)
