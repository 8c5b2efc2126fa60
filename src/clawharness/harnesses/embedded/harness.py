"""The built-in runtime's registration object (harness id `openclaw`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from clawharness.harnesses.embedded.ids import HARNESS_ID
from clawharness.plugin_sdk.agent_harness import (
    AttemptParams,
    AttemptResult,
    AttemptTerminal,
    ResolvedModel,
    SupportContext,
    Supported,
    SupportResult,
)

if TYPE_CHECKING:
    from clawharness.providers import ModelTransport

__all__ = ["HARNESS_ID", "HARNESS_LABEL", "OpenClawHarness", "TransportFactory"]

HARNESS_LABEL = "OpenClaw Default"

TransportFactory = Callable[[ResolvedModel, "str | None"], "ModelTransport"]


class OpenClawHarness:
    """The embedded runtime: runs turns against model APIs itself, with host tools."""

    id = HARNESS_ID
    label = HARNESS_LABEL

    def __init__(self, transport_factory: TransportFactory | None = None) -> None:
        # the providers' transports (and the turn loop) are imported at the first attempt:
        # a host that only reports (`clawharness status`) registers this harness without
        # them
        self._factory: TransportFactory | None = transport_factory

    def _transport(self, model: ResolvedModel, api_key: str | None) -> ModelTransport:
        if self._factory is None:
            from clawharness.providers import transport_for

            self._factory = transport_for
        return self._factory(model, api_key)

    def supports(self, ctx: SupportContext) -> SupportResult:
        """Always supported: the built-in runtime reproduces any configured route."""
        return Supported(reason="built-in runtime")

    async def run_attempt(self, params: AttemptParams) -> AttemptResult:
        """Run one attempt; failures before any model work end it as failed/precheck."""
        EmbeddedAttempt, ProviderError, provider_failure_details, resolve_api_key = _loop()
        try:
            api_key = params.auth.api_key
            if api_key and "${" in api_key:
                api_key = resolve_api_key(api_key)
            transport = self._transport(params.model, api_key)
        except ProviderError as exc:
            model = params.model
            details = {"type": exc.code, "provider": model.provider,
                       "model": f"{model.provider}/{model.model_id}",
                       **provider_failure_details(exc)}
            return await _precheck_failure(params, str(exc), details)
        try:
            return await EmbeddedAttempt(params, transport).run()
        finally:
            await transport.aclose()


    async def run_isolated_completion_v2(self, params: Any) -> dict[str, Any]:
        """One prompt-only call with a literal empty tool surface (host authorization)."""
        authorization = params.authorization
        from clawharness.harnesses.embedded.isolated import complete_once

        api_key = getattr(getattr(authorization, "auth", None), "api_key", None)
        transport = self._transport(authorization.model, api_key)
        try:
            return await complete_once(transport, params)
        finally:
            await transport.aclose()


if TYPE_CHECKING:
    from clawharness.harnesses.embedded.loop import EmbeddedAttempt
    from clawharness.providers import ProviderError

    _LoopParts = tuple[type[EmbeddedAttempt], type[ProviderError],
                       Callable[[ProviderError], dict[str, Any]],
                       Callable[[str | None], str | None]]

#: the turn loop and the provider names it needs, imported at the first attempt (see
#: `OpenClawHarness.__init__`), then kept: an import statement per attempt costs
#: microseconds
_LOOP: _LoopParts | None = None


def _loop() -> _LoopParts:
    global _LOOP
    if _LOOP is None:
        from clawharness.harnesses.embedded.loop import EmbeddedAttempt
        from clawharness.providers import ProviderError, provider_failure_details, resolve_api_key

        _LOOP = (EmbeddedAttempt, ProviderError, provider_failure_details, resolve_api_key)
    return _LOOP


async def _precheck_failure(params: AttemptParams, error: str,
                            details: dict[str, Any]) -> AttemptResult:
    from clawharness.harnesses.embedded.messages import user_message

    # an empty prompt continues the transcript (the caller's tool results): no user turn
    messages = ([user_message(params.prompt, params.images)]
                if params.prompt or params.images else [])
    if params.mirror is not None and messages:
        await params.mirror(messages)
    return AttemptResult(
        terminal=AttemptTerminal("failed", source="precheck", error=error, details=details),
        session_id_used=params.session_id,
        messages_snapshot=messages,
        agent_harness_id=HARNESS_ID,
        transcript_mirrored=params.mirror is not None,
    )
