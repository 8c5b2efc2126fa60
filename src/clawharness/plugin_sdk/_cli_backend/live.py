"""A binding's live process, and the small pieces a turn and the harness share."""

from __future__ import annotations

import inspect
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from clawharness.plugin_sdk._cli_backend.spec import CliAgentSpec
from clawharness.plugin_sdk.agent_harness import (
    AttemptParams,
    AttemptResult,
    AttemptTerminal,
    ContentBlock,
    Message,
)
from clawharness.plugin_sdk.agent_harness_process import (
    ChildProcess,
)
from clawharness.records import Usage

__all__ = ["LiveProcess", "ProcessStopped", "TurnTool", "maybe_await", "now_ms", "precheck_failure", "usage_of", "user_message"]


# --- live processes -----------------------------------------------------------------------


@dataclass(slots=True)
class LiveProcess:
    """One binding's running process."""

    child: ChildProcess
    fingerprint: str
    cwd: str
    session_id: str | None = None
    handshake_sent: bool = False
    #: the native session this process was started to resume (None: a new one)
    resumed: str | None = None
    #: started without a session to resume and no turn sent yet: its first prompt
    #: carries the host transcript
    fresh: bool = False
    #: the cost the process reported so far (`TurnFinished.cost_usd`: a running total)
    cost_usd: float = 0.0


def now_ms() -> int:
    return int(time.time() * 1000)


def usage_of(usage: Mapping[str, Any]) -> Usage:
    """Anthropic-style token counts as a `Usage` (its total counts the cached input too,
    as the CLI reports it)."""

    def count(name: str) -> int:
        value = usage.get(name)
        return value if isinstance(value, int) and not isinstance(value, bool) else 0

    input, output, cached = (count("input_tokens"), count("output_tokens"),
                             count("cache_read_input_tokens"))
    return Usage(input=input, output=output, cache_read=cached, total=input + output + cached)


async def maybe_await(value: Any) -> Any:
    if inspect.isawaitable(value):
        return await value
    return value


def user_message(prompt: str, images: Sequence[Mapping[str, Any]]) -> Message:
    content: list[ContentBlock] = [{"type": "text", "text": prompt}]
    for image in images:
        content.append({"type": "image", "data": image.get("data", ""),
                        "mimeType": image.get("mimeType", "image/png")})
    return {"role": "user", "content": content, "timestamp": now_ms()}


async def precheck_failure(spec: CliAgentSpec, params: AttemptParams,
                            error: str) -> AttemptResult:
    message = user_message(params.prompt, params.images)
    if params.mirror is not None:
        await params.mirror([{**message, "__meta": {"idempotencyKey": f"{params.run_id}:user"}}])
    return AttemptResult(
        terminal=AttemptTerminal("failed", source="precheck", error=error),
        session_id_used=params.session_id, messages_snapshot=[message],
        agent_harness_id=spec.id, transcript_mirrored=params.mirror is not None)


@dataclass(slots=True)
class TurnTool:
    id: str
    native_name: str
    name: str
    arguments: Mapping[str, Any]
    settled: bool = False


class ProcessStopped(Exception):
    """The process ended before the turn did."""
