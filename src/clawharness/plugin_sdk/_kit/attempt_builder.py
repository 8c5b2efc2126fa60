"""Building what a harness test needs: prepared attempts and support contexts.

`attempt_params(...)` makes an `AttemptParams` from a few fields (everything else has
the host's defaults: a permissive tool policy, no approver, a recording transcript
mirror, a fresh workspace); `declared_route(...)` makes the `SupportContext` of a
route whose provider declares the harness compatible. `RecordingMirror` keeps what a
harness mirrored, as the host's transcript would.
"""

from __future__ import annotations

import asyncio
import dataclasses
import tempfile
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, cast

from clawharness._json import JsonValue
from clawharness.harness.capabilities import (
    ApprovalGate,
    BeforeToolCallDecision,
    HostCapabilities,
    ToolPolicyCheck,
)
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
    "RecordingCapabilities",
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


class RecordingCapabilities(HostCapabilities):
    """The host's capabilities for a kit attempt, recording every tool call the harness
    put to the host's policy (`asked`: `(tool name, call id)` in order), so the kit can
    tell a tool that ran without asking."""

    def __init__(self, *, run_id: str, session_key: str, workspace_dir: str,
                 policy: ToolPolicyCheck, approvals: ApprovalGate | None) -> None:
        super().__init__(run_id=run_id, session_key=session_key, workspace_dir=workspace_dir,
                         policy=policy, approvals=approvals)
        self.policy = policy
        self.approvals = approvals
        self.asked: list[tuple[str, str | None]] = []

    async def run_before_tool_call(
        self, tool_name: str, arguments: Mapping[str, Any], *, tool_call_id: str | None = None,
        native_operation: Mapping[str, Any] | None = None,
    ) -> BeforeToolCallDecision:
        self.asked.append((tool_name, tool_call_id))
        return await super().run_before_tool_call(
            tool_name, arguments, tool_call_id=tool_call_id, native_operation=native_operation)


def next_turn_params(params: AttemptParams, prompt: str, *,
                     history: Sequence[Message]) -> AttemptParams:
    """The next turn of the same host session: a new run, live capabilities, a fresh
    abort event and mirror, and `history` as the transcript so far."""
    run_id = uuid.uuid4().hex
    old = params.host_capabilities
    policy = old.policy if isinstance(old, RecordingCapabilities) else StaticToolPolicy()
    approvals = old.approvals if isinstance(old, RecordingCapabilities) else None
    capabilities = RecordingCapabilities(run_id=run_id, session_key=params.session_key,
                                         workspace_dir=params.workspace_dir, policy=policy,
                                         approvals=approvals)
    recorder = RecordingMirror() if params.mirror is not None else None
    return dataclasses.replace(
        params, run_id=run_id, prompt=prompt, history=tuple(history),
        host_capabilities=capabilities, abort=asyncio.Event(), mirror=recorder,
        mirror_barrier=recorder.flush if recorder is not None else None)


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
    capabilities = RecordingCapabilities(run_id=run_id, session_key=key,
                                         workspace_dir=workspace,
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
                   base_url: str | None = None,
                   request_overrides: bool = False) -> SupportContext:
    """What `supports(ctx)` sees for a route whose provider declares `harness_id`
    compatible (`runtimePolicy.compatibleIds`), with no authored request overrides
    unless `request_overrides` (`request_transport_overrides == "present"`)."""
    return SupportContext(
        provider=provider, model_id=model_id, requested_runtime=requested_runtime,
        model_provider=ModelProviderFacts(
            api=api, base_url=base_url, runtime_policy=RuntimePolicyFact((harness_id,)),
            request_transport_overrides="present" if request_overrides else "none"))
