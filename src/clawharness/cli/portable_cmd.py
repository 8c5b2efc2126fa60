"""`clawharness sessions adopt`, `handoff` and `fork`: sessions that move between a
native runtime and the host, and onto another model or runtime
(docs/portable-sessions.md)."""

import shlex
from typing import TYPE_CHECKING, Annotated

import typer
from rich.markup import escape

from clawharness._text import terminal_safe
from clawharness.cli.common import ConfigOption, JsonOption, console, print_json, run_async
from clawharness.host import Host

if TYPE_CHECKING:
    from clawharness.harness import NativeHandoff
    from clawharness.sessions import AdoptionResult, ForkResult

__all__ = ["register_portable"]

RUNTIMES = "claude-code, codex or acp/<agent>"
HomeOption = Annotated[str | None, typer.Option(
    "--home", metavar="DIR",
    help="The runtime's home to use instead of the user's own (a CLAUDE_CONFIG_DIR, a "
         "CODEX_HOME).")]


def _show(text: str) -> str:
    """`text` (a path, an id, a note read from a native file) for the terminal: no
    control sequences, no rich markup."""
    return escape(terminal_safe(text))


def _notes(left_out: tuple[str, ...]) -> None:
    for note in left_out:
        console.print(f"  [dim]not carried: {_show(note)}[/]", highlight=False)


def register_portable(sessions: typer.Typer) -> None:
    @sessions.command("adopt")
    def adopt_cmd(
            source: Annotated[str, typer.Argument(
                metavar="PATH|ID", help="The native session: its file, or its id.")],
            runtime: Annotated[str, typer.Option(
                "--from", metavar="RUNTIME", help=f"Whose session it is: {RUNTIMES}.")],
            as_key: Annotated[str | None, typer.Option(
                "--as", metavar="KEY", help="The host session to adopt it into (default: "
                "one named after the runtime and the session id).")] = None,
            agent: Annotated[str | None, typer.Option(help="The agent that adopts it.")] = None,
            model: Annotated[str | None, typer.Option(
                help="The model its next turns run on (default: the one it ran on).")] = None,
            home: HomeOption = None, config: ConfigOption = None,
            as_json: JsonOption = False) -> None:
        """Mirror a Claude Code, Codex or ACP session into a host session; its next turn
        resumes it natively. Adopting again adds only what is new."""
        async def go() -> "AdoptionResult":
            async with Host.from_config(config) as host:
                return await host.adopt_session(runtime, source, key=as_key, agent_id=agent,
                                                model=model, home=home)
        result = run_async(go, as_json=as_json)
        if as_json:
            print_json(result.to_json())
            return
        verb = "adopted" if result.appended else "nothing new in"
        console.print(
            f"[green]{verb}[/] {_show(result.harness_id)} session "
            f"{_show(result.native_session_id)} -> [bold]{_show(result.session_key)}[/]: "
            f"{result.appended} message(s) added, {result.already} already there",
            highlight=False)
        _notes(result.left_out)
        key = _show(shlex.quote(result.session_key))
        console.print(f"  go on: clawharness agent --session {key} -m '...'", highlight=False)

    @sessions.command("handoff")
    def handoff_cmd(
            key: Annotated[str, typer.Argument(help="The host session to hand off.")],
            to: Annotated[str, typer.Option("--to", metavar="RUNTIME",
                                            help=f"Whose session to make: {RUNTIMES}.")],
            cwd: Annotated[str | None, typer.Option(
                metavar="DIR", help="Where the native session runs (default: the agent's "
                "workspace).")] = None,
            home: HomeOption = None, config: ConfigOption = None,
            as_json: JsonOption = False) -> None:
        """Make a native session holding a host session's transcript, for the runtime's
        own CLI to resume; print the command that does."""
        async def go() -> "tuple[str, NativeHandoff]":
            async with Host.from_config(config) as host:
                record = await host.get_session(key)
                return record.key, await host.handoff_session(key, to, home=home, cwd=cwd)
        session_key, handoff = run_async(go, as_json=as_json)
        if as_json:
            print_json({"sessionKey": session_key, **handoff.to_json()})
            return
        console.print(
            f"[green]handed off[/] {_show(session_key)} -> {_show(handoff.harness_id)} "
            f"session {_show(handoff.native_session_id)} ({handoff.carried} message(s)) in "
            f"{_show(handoff.location)}", highlight=False)
        _notes(handoff.left_out)
        console.print("resume it with:", highlight=False)
        console.print(f"  {_show(handoff.shell())}", highlight=False, soft_wrap=True)

    @sessions.command("fork")
    def fork_cmd(
            key: Annotated[str, typer.Argument(help="The session to fork.")],
            at: Annotated[str | None, typer.Option(
                "--at", metavar="TURN|ENTRY", help="Where to cut: N or turn:N (through the "
                "Nth turn), entry:SEQ (through that entry); default the whole transcript."
            )] = None,
            as_key: Annotated[str | None, typer.Option(
                "--as", metavar="NEWKEY", help="The new session's key (default: "
                "<key>-fork-<id>).")] = None,
            model: Annotated[str | None, typer.Option(
                metavar="REF", help="The model the fork's next turn runs on (default: the "
                "source's).")] = None,
            runtime: Annotated[str | None, typer.Option(
                metavar="ID", help="The runtime it runs on (openclaw, codex, claude-cli, "
                "acp/<agent>; default: the normal selection for the model).")] = None,
            config: ConfigOption = None, as_json: JsonOption = False) -> None:
        """A new session holding a prefix of another's transcript, to go on from there
        on another model or runtime. The source is not changed."""
        async def go() -> "ForkResult":
            async with Host.from_config(config) as host:
                return await host.fork_session(key, at=at, new_key=as_key, model=model,
                                               runtime=runtime)
        result = run_async(go, as_json=as_json)
        if as_json:
            print_json(result.to_json())
            return
        console.print(
            f"[green]forked[/] {_show(result.source_key)} (through entry "
            f"{result.through_seq}) -> [bold]{_show(result.session_key)}[/]: "
            f"{result.copied} entr{'y' if result.copied == 1 else 'ies'} copied", highlight=False)
        console.print(f"  next turn: model {_show(result.model_ref or 'the agent default')}, "
                      f"runtime {_show(result.runtime or 'as selected for it')}",
                      highlight=False)
        new = _show(shlex.quote(result.session_key))
        console.print(f"  go on: clawharness agent --session {new} -m '...'", highlight=False)
