"""The host-facing session hooks of a native harness, made from a binding lifecycle.

The host (`clawharness.sessions.lifecycle.SessionLifecycle`) calls a harness's
`with_session_deletion(params, run)`, `with_session_context_reset(params, run)` and
`reset(params)`; `run(commit, rollback)` is the host's transaction. One line gives a
harness all three:

    harness_session_hooks(lifecycle, key_for=lambda p: f"session:{p.agent_id}:{p.session_key}")
        .install(self)
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, Generic, TypeVar

from clawharness.sessions.bindings.lifecycle import (
    BindingOperationParams,
    Commit,
    NativeSessionBindingLifecycle,
    Rollback,
)
from clawharness.sessions.bindings.namespace import Lease
from clawharness.sessions.lifecycle import SessionHookParams

__all__ = ["HarnessSessionHooks", "HostRun", "harness_session_hooks"]

T = TypeVar("T")
H = TypeVar("H")

#: the host's transaction, as it reaches a harness hook
HostRun = Callable[[Commit, Rollback], Awaitable[Any]]


class HarnessSessionHooks(Generic[T]):
    """`with_session_deletion`, `with_session_context_reset` and `reset` for a harness."""

    def __init__(
        self,
        lifecycle: NativeSessionBindingLifecycle[T],
        key_for: Callable[[SessionHookParams], str],
        *,
        prepare_lease: Callable[[T | None, Lease], T | None] | None = None,
        after_commit: Callable[[SessionHookParams, T], Awaitable[None]] | None = None,
    ) -> None:
        self.lifecycle = lifecycle
        self.key_for = key_for
        self._prepare_lease = prepare_lease
        self._after_commit = after_commit

    def operation_params(self, params: SessionHookParams) -> BindingOperationParams:
        """The lifecycle's view of one host hook call."""
        return BindingOperationParams(
            key=self.key_for(params), assert_current=params.assert_current,
            session_key=params.session_key, session_id=params.session_id,
            previous_session_id=params.previous_session_id, reason=params.reason,
            prepare_lease=self._prepare_lease)

    def _after(self, params: SessionHookParams) -> Callable[[T], Awaitable[None]] | None:
        hook = self._after_commit
        if hook is None:
            return None

        async def after(record: T) -> None:
            await hook(params, record)

        return after

    async def with_session_deletion(self, params: SessionHookParams, run: HostRun) -> Any:
        """Delete the session's binding inside the host's session deletion transaction."""

        async def inner(_stored: T | None, commit: Commit, rollback: Rollback) -> Any:
            return await run(commit, rollback)

        return await self.lifecycle.with_deletion(
            self.operation_params(params), inner, after_commit=self._after(params))

    async def with_session_context_reset(self, params: SessionHookParams,
                                         run: HostRun) -> Any:
        """Invalidate the binding inside the host's rewind / branch-switch transaction."""

        async def inner(_stored: T | None, commit: Commit, rollback: Rollback) -> Any:
            return await run(commit, rollback)

        return await self.lifecycle.with_context_reset(
            self.operation_params(params), inner, after_commit=self._after(params))

    async def reset(self, params: SessionHookParams) -> None:
        """Clear the binding for an in-place reset (a later turn binds afresh)."""
        await self.lifecycle.reset(self.operation_params(params))

    def install(self, harness: H) -> H:
        """Set the three hook methods on `harness` and return it."""
        harness.with_session_deletion = self.with_session_deletion  # type: ignore[attr-defined]
        harness.with_session_context_reset = (  # type: ignore[attr-defined]
            self.with_session_context_reset)
        harness.reset = self.reset  # type: ignore[attr-defined]
        return harness


def harness_session_hooks(
    lifecycle: NativeSessionBindingLifecycle[T],
    *,
    key_for: Callable[[SessionHookParams], str],
    prepare_lease: Callable[[T | None, Lease], T | None] | None = None,
    after_commit: Callable[[SessionHookParams, T], Awaitable[None]] | None = None,
) -> HarnessSessionHooks[T]:
    """The three session hooks of a harness whose bindings live in `lifecycle`."""
    return HarnessSessionHooks(lifecycle, key_for, prepare_lease=prepare_lease,
                               after_commit=after_commit)
