"""Fakes shared by the harness tests: a scripted harness and a minimal prepared attempt."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from clawharness.harness.types import (
    AttemptParams,
    AttemptResult,
    AttemptTerminal,
    ResolvedModel,
    SupportContext,
    Supported,
    SupportResult,
)


@dataclass
class FakeHarness:
    """A harness whose support answer and attempt behaviour are scripted."""

    id: str
    label: str = ""
    support: SupportResult | Callable[[SupportContext], SupportResult] = field(
        default_factory=Supported
    )
    fail_with: BaseException | None = None
    supports_calls: list[SupportContext] = field(default_factory=list)
    attempts: list[AttemptParams] = field(default_factory=list)

    def __post_init__(self) -> None:
        if not self.label:
            self.label = f"{self.id} harness"

    def supports(self, ctx: SupportContext) -> SupportResult:
        self.supports_calls.append(ctx)
        return self.support(ctx) if callable(self.support) else self.support

    async def run_attempt(self, params: AttemptParams) -> AttemptResult:
        self.attempts.append(params)
        await asyncio.sleep(0)
        if self.fail_with is not None:
            raise self.fail_with
        return AttemptResult(terminal=AttemptTerminal.ok(), session_id_used=params.session_id,
                             assistant_texts=[f"hello from {self.id}"])


def make_params(**overrides: Any) -> AttemptParams:
    """A prepared attempt with inert defaults (host capabilities are not exercised)."""
    values: dict[str, Any] = dict(
        run_id="run-1",
        session_key="agent:main:main",
        session_id="sess-1",
        agent_id="main",
        prompt="hi",
        provider="openai",
        model_id="gpt-x",
        model=ResolvedModel(provider="openai", model_id="gpt-x"),
        workspace_dir="/tmp",
        host_capabilities=None,
        runtime_plan=None,
    )
    values.update(overrides)
    return AttemptParams(**values)
