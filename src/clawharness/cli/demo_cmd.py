"""`clawharness demo`: the main job on a fresh machine — no key, no network.

Starts the scripted model server on loopback, writes a config pointing the `scripted`
provider at it, and runs a short multi-turn session through the whole host path (the
built-in runtime, OpenAI's Responses API over HTTP, host tools, tool policy, the SQLite
transcript), then shows the transcript and a search over it.

With `--state-dir` the config, the SQLite store and the workspace stay there afterwards
(`scripts/demo.sh` uses `.demo/` in the checkout) and the demo ends with the commands
that look at them; a second run resets the demo session (its earlier transcript stays
in the store, unsearchable). Without it everything lives in a temporary directory that
is removed on exit, and the demo says so.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.panel import Panel

from clawharness.cli.common import console, run_async

__all__ = ["DEMO_SCRIPT", "register", "run_demo"]

DEMO_SCRIPT: dict[str, Any] = {
    "responses": [
        {"match": "^hello", "text": "Hello! I am running offline against a scripted model. "
                                    "Ask me to take a note."},
        {"match": "take a note", "tool_calls": [
            {"name": "write", "arguments": {"path": "notes/todo.md",
                                            "content": "- try clawharness\n- read the transcript\n"}}]},
        {"match": "Wrote|wrote", "text": "Saved your note to notes/todo.md."},
        {"match": "what is in", "tool_calls": [{"name": "read", "arguments": {"path": "notes/todo.md"}}]},
        {"match": "try clawharness", "text": "The note says: try clawharness, then read the transcript."},
    ],
    "exhausted": "text",
}

DEMO_TURNS = ("hello there", "please take a note for me", "what is in my note?")
DEMO_SESSION = "agent:main:demo"


async def run_demo(state_dir: Path, *, quiet: bool = False) -> list[Any]:
    """Run the demo session in `state_dir`; returns the turn results."""
    from clawharness.attempt.turn import TurnOptions
    from clawharness.cli.sessions_cmd import render_transcript
    from clawharness.host import Host
    from clawharness.testing import ScriptedModelServer

    results = []
    state_dir = state_dir.absolute()
    async with ScriptedModelServer(DEMO_SCRIPT) as server:
        config_path = state_dir / "config.json5"
        # the store's place is in the config, so `--config <this file>` alone finds it later
        config_path.write_text(json.dumps({
            "models": {"providers": {"scripted": {
                "baseUrl": server.base_url_openai, "api": "openai-responses", "apiKey": "offline-demo",
                "models": [{"id": "demo-model"}]}}},
            "agents": {"defaults": {"model": "scripted/demo-model",
                                    "workspace": str(state_dir / "workspace")}},
            "store": {"url": str(state_dir / "clawharness.db")},
        }, indent=2))
        env = {"CLAWHARNESS_STATE_DIR": str(state_dir)}
        async with Host.from_config(config_path, env=env) as host:
            if await host.store.get_session(DEMO_SESSION) is not None:
                await host.reset_session(DEMO_SESSION)  # each run starts a fresh transcript
                if not quiet:
                    console.print(f"[dim]reset {DEMO_SESSION} from the last run (its transcript "
                                  "stays in the store, no longer shown or searchable)[/]",
                                  highlight=False)
            for text in DEMO_TURNS:
                if not quiet:
                    console.print(f"[bold cyan]you[/]  {text}", highlight=False)
                result = await host.run_turn(DEMO_SESSION, text, TurnOptions())
                results.append(result)
                if not quiet:
                    tools = ", ".join(f"{c.tool_name}({'failed' if c.is_error else 'ok'})"
                                      for c in result.tool_calls)
                    console.print(f"[bold green]agent[/] {result.text}" + (f"  [dim]tools: {tools}[/]" if tools else ""),
                                  highlight=False)
            if not quiet:
                entries = await host.history(DEMO_SESSION)
                console.print(Panel.fit(f"transcript of {DEMO_SESSION} (SQLite, "
                                        f"{host.store.url})", style="bold"))
                render_transcript(entries)
                hits = await host.search("note")
                console.print(f"[bold]search 'note'[/]: {len(hits)} hit(s) in "
                              f"{len({h.session_key for h in hits})} session(s)", highlight=False)
    return results


def _kept_state_hint(shown_dir: Path) -> str:
    """The closing note for a demo whose state stays: where, and how to look at it."""
    config = shown_dir / "config.json5"
    lines = [
        f"The demo's config, store and workspace are kept in {shown_dir}/. Look at them with:",
        f"  clawharness sessions list --config {config}",
        f"  clawharness sessions show demo --config {config}",
        f"  clawharness transcript search note --config {config}",
        f"  cat {shown_dir / 'workspace' / 'notes' / 'todo.md'}",
        "Its scripted model server stopped with the demo: to run new turns, start one "
        "(README.md, the five-minute tour).",
    ]
    return "\n".join(lines)


def register(app: typer.Typer) -> None:
    @app.command("demo")
    def demo(state_dir: Annotated[Path | None, typer.Option(
            help="Keep the demo's config, store and workspace here (default: a temporary "
                 "directory, removed on exit).")] = None,
             real_model: Annotated[bool, typer.Option(
                 "--real-model", help="Run real turns against a real model on the CPU, "
                 "offline (SmolLM2-135M on llama.cpp; installed on first use, about 130 MB "
                 "to download; docs/real-model.md).")] = False) -> None:
        """Run a short offline agent session end to end and show its transcript."""
        async def go() -> list[Any]:
            runner: Callable[[Path], Awaitable[list[Any]]] = run_demo
            if real_model:
                from clawharness.cli.demo_real import run_real_demo
                runner = run_real_demo
            if state_dir is not None:
                state_dir.mkdir(parents=True, exist_ok=True)
                return await runner(state_dir)
            with tempfile.TemporaryDirectory(prefix="clawharness-demo-") as tmp:
                return await runner(Path(tmp))
        results = run_async(go, as_json=False)
        if any(r.terminal != "ok" for r in results):
            console.print("[red]demo turn failed[/]")
            raise typer.Exit(1)
        console.print("[green]demo complete[/]")
        if real_model:
            if state_dir is not None:
                console.print(f"Its config, store and workspace are kept in {state_dir}/.",
                              highlight=False, soft_wrap=True)
            return
        if state_dir is not None:
            console.print(_kept_state_hint(state_dir), highlight=False, soft_wrap=True)
        else:
            console.print("That store was temporary and is gone now; run "
                          "`clawharness demo --state-dir DIR` (or `bash scripts/demo.sh`, "
                          "which keeps .demo/) to keep it.", highlight=False, soft_wrap=True)
