"""Building what a harness test needs: prepared attempts and support contexts.

`attempt_params(...)` makes an `AttemptParams` from a few fields (everything else has
the host's defaults: a permissive tool policy, no approver, a recording transcript
mirror, a fresh workspace); `declared_route(...)` makes the `SupportContext` of a
route whose provider declares the harness compatible. `RecordingMirror` keeps what a
harness mirrored, as the host's transcript would.
"""

from __future__ import annotations

import asyncio
import tempfile
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal, cast

from clawharness._json import JsonValue
from clawharness.harness.capabilities import ApprovalGate, HostCapabilities, ToolPolicyCheck
from clawharness.harness.messages import Message
from clawharness.harness.types import (
    AttemptParams,
    ModelProviderFacts,
    ResolvedModel,
    RuntimePolicyFact,
    SupportContext,
    ToolSpec,
)
from clawharness.runtime_plan.plan import build_agent_runtime_plan

__all__ = [
    "RecordingMirror",
    "StaticToolPolicy",
    "attempt_params",
    "declared_route",
]


@dataclass(frozen=True, slots=True)
class StaticToolPolicy:
    """A tool policy for tests: `deny` maps tool names to the reason they are refused,
    `ask` to why a call needs approval; every other tool is allowed."""

    deny: Mapping[str, str] = field(default_factory=dict)
    ask: Mapping[str, str] = field(default_factory=dict)

    def check(self, tool_name: str) -> str | None:
        return self.deny.get(tool_name)

    def needs_approval(self, tool_name: str, arguments: Mapping[str, object]) -> str | None:
        return self.ask.get(tool_name)


class RecordingMirror:
    """`params.mirror` that keeps the mirrored messages in order (`messages`), as the
    host's transcript would store them (without their `__meta`), and the idempotency
    key each came with (`keys`, for the messages that carried one)."""

    def __init__(self) -> None:
        self.messages: list[Message] = []
        self.keys: list[str] = []
        self.calls = 0

    async def __call__(self, messages: Sequence[Message]) -> None:
        self.calls += 1
        for message in messages:
            meta = message.get("__meta")
            key = meta.get("idempotencyKey") if meta is not None else None
            if key is not None:
                self.keys.append(key)
            self.messages.append(cast(Message, {k: v for k, v in message.items()
                                                if k != "__meta"}))

    async def flush(self) -> None:
        """`params.mirror_barrier`: everything is stored at once here."""
        await asyncio.sleep(0)


def attempt_params(
    prompt: str = "Hello",
    *,
    provider: str = "test",
    model_id: str = "test-model",
    harness_id: str | None = None,
    agent_id: str = "main",
    session_key: str | None = None,
    session_id: str | None = None,
    workspace_dir: str | None = None,
    state_dir: str | None = None,
    tools: Sequence[ToolSpec] = (),
    history: Sequence[Message] = (),
    policy: ToolPolicyCheck | None = None,
    approvals: ApprovalGate | None = None,
    mirror: RecordingMirror | Literal[False] | None = None,
    plugin_config: Mapping[str, JsonValue] | None = None,
    capture_runtime_artifact: bool = False,
) -> AttemptParams:
    """A prepared attempt as the host would hand it over, from a few facts.

    `mirror`: a `RecordingMirror` to read back (None: a new one; False: no mirror, so
    the host stores the result's `messages_snapshot`). `workspace_dir` defaults to a
    new temporary directory; pass pytest's `tmp_path` to keep tests tidy.
    """
    run_id = uuid.uuid4().hex
    key = session_key or f"agent:{agent_id}:main"
    workspace = workspace_dir or tempfile.mkdtemp(prefix="clawharness-kit-")
    capabilities = HostCapabilities(run_id=run_id, session_key=key, workspace_dir=workspace,
                                    policy=policy or StaticToolPolicy(), approvals=approvals)
    recorder = (None if mirror is False
                else mirror if isinstance(mirror, RecordingMirror) else RecordingMirror())
    return AttemptParams(
        run_id=run_id, session_key=key, session_id=session_id or uuid.uuid4().hex,
        agent_id=agent_id, prompt=prompt, provider=provider, model_id=model_id,
        model=ResolvedModel(provider, model_id), workspace_dir=workspace,
        host_capabilities=capabilities,
        runtime_plan=build_agent_runtime_plan(provider=provider, model_id=model_id,
                                              harness_id=harness_id),
        tools=tuple(tools), history=tuple(history), abort=asyncio.Event(),
        agent_harness_id=harness_id, plugin_config=dict(plugin_config or {}),
        state_dir=state_dir, capture_runtime_artifact=capture_runtime_artifact,
        mirror=recorder, mirror_barrier=recorder.flush if recorder is not None else None,
    )


def declared_route(harness_id: str, provider: str, model_id: str | None = None, *,
                   requested_runtime: str = "auto", api: str | None = None,
                   base_url: str | None = None) -> SupportContext:
    """What `supports(ctx)` sees for a route whose provider declares `harness_id`
    compatible (`runtimePolicy.compatibleIds`) with no authored request overrides."""
    return SupportContext(
        provider=provider, model_id=model_id, requested_runtime=requested_runtime,
        model_provider=ModelProviderFacts(api=api, base_url=base_url,
                                          runtime_policy=RuntimePolicyFact((harness_id,))))
