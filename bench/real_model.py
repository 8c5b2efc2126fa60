"""The real model (SmolLM2-135M on llama.cpp, docs/real-model.md): its speed on this CPU,
and what the host adds to a real turn.

Measured, with the model installed by `scripts/real-model.sh`:
  - the server's start-up (spawn to listening, the model loaded);
  - prompt and generation tokens/s (llama.cpp's own timings) for the tool-call prompt the
    tests send (about 460 tokens, evaluated whole), with one and with two threads;
  - a plain turn through the host (`Host.run_turn`, built-in runtime, `openai-completions`,
    streamed, SQLite transcript) beside its peer, the same request streamed straight to
    the server with the `openai` SDK, the two alternating; `host_ratio` = host / direct
    median seconds.

    python bench/real_model.py [--quick]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
from _common import console, emit, median, show

PROMPT = "What is the capital of France?"


def _tool_prompt_body(tools: list[dict[str, Any]]) -> dict[str, Any]:
    from clawharness.testing.real_model.session import (
        READ_REQUEST,
        SEED_ANSWER,
        SEED_REQUEST,
        WORKSPACE_FILES,
    )
    return {"messages": [
        {"role": "system", "content": "You are a helpful agent."},
        {"role": "user", "content": SEED_REQUEST},
        {"role": "assistant", "content": None, "tool_calls": [{
            "id": "c1", "type": "function", "function": {"name": "ls", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "c1", "content": "\n".join(sorted(WORKSPACE_FILES))},
        {"role": "assistant", "content": SEED_ANSWER},
        {"role": "user", "content": READ_REQUEST},
    ], "tools": tools, "max_tokens": 64, "ignore_eos": True, "temperature": 0}


def _host_tools() -> list[dict[str, Any]]:
    """`read` and `ls` as the host offers them (their real schemas)."""
    from clawharness.tools.builtin import core_tool_specs

    return [{"type": "function", "function": {
        "name": t.name, "description": t.description, "parameters": dict(t.parameters)}}
        for t in core_tool_specs() if t.name in ("read", "ls")]


def speed(runtime: Any, threads: int, rounds: int) -> dict[str, Any]:
    from clawharness.testing.real_model import LlamaServer, LlamaSettings

    with LlamaServer(runtime, LlamaSettings(threads=threads)) as llama:
        body = _tool_prompt_body(TOOLS)
        prompt_rates, gen_rates = [], []
        for _ in range(rounds):
            answer = httpx.post(f"{llama.url}/v1/chat/completions", json=body, timeout=600)
            timings = answer.json()["timings"]
            prompt_rates.append(timings["prompt_per_second"])
            gen_rates.append(timings["predicted_per_second"])
        return {"startup_s": llama.startup_seconds, "prompt_tokens": timings["prompt_n"],
                "prompt_tps": median(prompt_rates), "gen_tps": median(gen_rates)}


async def host_vs_direct(runtime: Any, rounds: int) -> dict[str, Any]:
    import openai

    from clawharness.attempt.turn import TurnOptions
    from clawharness.host import Host
    from clawharness.testing.real_model import LlamaServer, RealModelServer

    host_s, direct_s = [], []
    with LlamaServer(runtime) as llama, tempfile.TemporaryDirectory() as tmp:
        async with RealModelServer(llama) as model:
            config = Path(tmp) / "config.json"
            config.write_text(json.dumps({
                "models": {"providers": {"local": model.provider_config()}},
                "agents": {"defaults": {"model": f"local/{model.model_id}",
                                        "workspace": str(Path(tmp) / "ws")}},
                "tools": {"deny": ["*"]}, "store": {"url": str(Path(tmp) / "db.sqlite")}}))
            client = openai.AsyncOpenAI(base_url=f"{llama.url}/v1", api_key="x", max_retries=0)
            async with Host.from_config(config, env={"CLAWHARNESS_STATE_DIR": tmp}) as host:
                await host.run_turn("agent:main:warm", PROMPT, TurnOptions())
                for index in range(rounds):
                    started = time.perf_counter()
                    result = await host.run_turn(f"agent:main:b{index}", PROMPT, TurnOptions())
                    host_s.append(time.perf_counter() - started)
                    assert result.terminal == "ok", result.error
                    # the peer sends exactly what the host sent, straight to llama.cpp
                    body = dict(model.chat_requests()[-1].body)
                    body.pop("stream", None)
                    started = time.perf_counter()
                    stream = await client.chat.completions.create(stream=True, **body)
                    async for _ in stream:
                        pass
                    direct_s.append(time.perf_counter() - started)
            await client.close()
    return {"host_s": median(host_s), "direct_s": median(direct_s),
            "host_ratio": median(host_s) / median(direct_s)}


TOOLS: list[dict[str, Any]] = []


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer rounds (under a minute)")
    args = parser.parse_args()
    from clawharness.testing.real_model import RealModelRuntime

    runtime = RealModelRuntime.default().require()
    TOOLS.extend(_host_tools())
    rounds = 1 if args.quick else 5
    one = speed(runtime, 1, rounds)
    two = speed(runtime, 2, rounds)
    turn = asyncio.run(host_vs_direct(runtime, rounds))
    show("the real model on this CPU (llama.cpp's timings; tool-call prompt, evaluated whole)",
         ["threads", "start-up s", "prompt tokens", "prompt tokens/s", "generation tokens/s"],
         [[1, one["startup_s"], one["prompt_tokens"], one["prompt_tps"], one["gen_tps"]],
          [2, two["startup_s"], two["prompt_tokens"], two["prompt_tps"], two["gen_tps"]]])
    show("a plain turn: through the host vs the same request straight to llama.cpp",
         ["host s (median)", "direct s (median)", "host / direct"],
         [[turn["host_s"], turn["direct_s"], turn["host_ratio"]]])
    emit({"bench": "real_model", "quick": args.quick, "rounds": rounds,
          "startup_s": round(two["startup_s"], 2), "prompt_tokens": two["prompt_tokens"],
          "prompt_tps_1_thread": round(one["prompt_tps"], 1),
          "gen_tps_1_thread": round(one["gen_tps"], 1),
          "prompt_tps_2_threads": round(two["prompt_tps"], 1),
          "gen_tps_2_threads": round(two["gen_tps"], 1),
          "host_turn_s": round(turn["host_s"], 3), "direct_s": round(turn["direct_s"], 3),
          "host_ratio": round(turn["host_ratio"], 3)})
    console.print(f"[dim]started {time.strftime('%Y-%m-%d')}[/]")


if __name__ == "__main__":
    main()
