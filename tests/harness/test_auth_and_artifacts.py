"""Seed 004 "Harness-owned auth bootstrap" and "Verified setup runtime artifacts"."""

from __future__ import annotations

from typing import Any

import pytest
from harness_fakes import FakeHarness, make_params

from clawharness.errors import (
    AgentHarnessPreflightError,
    ProviderAuthError,
    RuntimeArtifactMismatchError,
)
from clawharness.harness.dispatch import run_selected_attempt
from clawharness.harness.gates import (
    assert_runtime_artifact,
    check_runtime_artifact_result,
    resolve_auth_bootstrap,
    validate_runtime_artifact_binding,
)
from clawharness.harness.registry import HarnessRegistry
from clawharness.harness.selection import SelectionRequest, select_harness
from clawharness.harness.types import AttemptParams, AttemptResult, AttemptTerminal, RuntimeArtifact

ART = RuntimeArtifact(id="native:v1:abc", fingerprint="f" * 64)


class OwnsAuth(FakeHarness):
    auth_bootstrap = "harness"


def test_harness_owned_auth_skips_host_bootstrap_and_missing_credentials() -> None:
    decision = resolve_auth_bootstrap(OwnsAuth("native"), builtin=False, provider="openai",  # type: ignore[arg-type]
                                      has_credentials=False, profile_id="openai:work")
    assert decision.owner == "harness" and decision.run_host_bootstrap is False
    assert decision.forward_profile_id == "openai:work"


def test_host_owned_auth_fails_on_missing_credentials() -> None:
    with pytest.raises(ProviderAuthError, match='no credentials for provider "openai"'):
        resolve_auth_bootstrap(FakeHarness("native"), builtin=False, provider="openai",  # type: ignore[arg-type]
                               has_credentials=False)
    ok = resolve_auth_bootstrap(FakeHarness("native"), builtin=False, provider="openai",  # type: ignore[arg-type]
                                has_credentials=True)
    assert ok.owner == "host" and ok.run_host_bootstrap


def test_the_builtin_never_owns_auth_even_if_it_says_so() -> None:
    with pytest.raises(ProviderAuthError):
        resolve_auth_bootstrap(OwnsAuth("openclaw"), builtin=True, provider="openai",  # type: ignore[arg-type]
                               has_credentials=False)


def test_assert_runtime_artifact() -> None:
    assert_runtime_artifact(None, None)
    assert_runtime_artifact(ART, RuntimeArtifact(ART.id, ART.fingerprint))
    with pytest.raises(RuntimeArtifactMismatchError, match="mismatch"):
        assert_runtime_artifact(ART, RuntimeArtifact(ART.id, "0" * 64))
    with pytest.raises(RuntimeArtifactMismatchError, match="reported none"):
        assert_runtime_artifact(ART, None)


class AttestingHarness(FakeHarness):
    """Compares the expected artifact before starting a native thread, as the seed asks."""

    def __init__(self, hid: str, acquired: RuntimeArtifact) -> None:
        super().__init__(hid)
        self.acquired = acquired
        self.threads_started = 0
        outer = self

        class _Capability:
            def validate(self, artifact: RuntimeArtifact) -> bool:
                return artifact == outer.acquired

        self.runtime_artifact = _Capability()

    async def run_attempt(self, params: AttemptParams) -> AttemptResult:
        assert_runtime_artifact(params.expected_runtime_artifact, self.acquired)
        self.threads_started += 1
        return AttemptResult(
            terminal=AttemptTerminal.ok(), session_id_used=params.session_id,
            runtime_artifact=self.acquired if params.capture_runtime_artifact else None)


def _decision(harness: FakeHarness) -> Any:
    registry = HarnessRegistry()
    registry.register(harness)  # type: ignore[arg-type]
    from clawharness.config.schema import ClawConfig

    config = ClawConfig.model_validate(
        {"models": {"providers": {"acme": {"agentRuntime": {"id": harness.id}}}}})
    return select_harness(config, registry, SelectionRequest(provider="acme", model_id="m"), env={})


async def test_expected_artifact_mismatch_fails_before_a_native_thread_starts() -> None:
    harness = AttestingHarness("native", RuntimeArtifact(ART.id, "0" * 64))
    with pytest.raises(RuntimeArtifactMismatchError):
        await run_selected_attempt(_decision(harness), make_params(expected_runtime_artifact=ART))
    assert harness.threads_started == 0


async def test_capture_returns_the_artifact_and_matching_expectation_runs() -> None:
    harness = AttestingHarness("native", ART)
    result = await run_selected_attempt(
        _decision(harness), make_params(capture_runtime_artifact=True, expected_runtime_artifact=ART))
    assert result.runtime_artifact == ART and harness.threads_started == 1
    assert await validate_runtime_artifact_binding(harness, ART) is True  # type: ignore[arg-type]
    assert await validate_runtime_artifact_binding(
        harness, RuntimeArtifact(ART.id, "1" * 64)) is False  # type: ignore[arg-type]


async def test_capture_request_without_attestation_capability_is_refused_up_front() -> None:
    plain = FakeHarness("native")
    with pytest.raises(AgentHarnessPreflightError) as info:
        await run_selected_attempt(_decision(plain), make_params(capture_runtime_artifact=True))
    assert info.value.scope == "harness" and plain.attempts == []
    assert await validate_runtime_artifact_binding(plain, ART) is False  # type: ignore[arg-type]


def test_a_capture_that_returns_nothing_is_rejected() -> None:
    params = make_params(capture_runtime_artifact=True)
    empty = AttemptResult(terminal=AttemptTerminal.ok(), session_id_used="s")
    with pytest.raises(RuntimeArtifactMismatchError, match="asked to capture"):
        check_runtime_artifact_result(params, empty)
    blank = AttemptResult(terminal=AttemptTerminal.ok(), session_id_used="s",
                          runtime_artifact=RuntimeArtifact("", ""))
    with pytest.raises(RuntimeArtifactMismatchError):
        check_runtime_artifact_result(params, blank)
    # ordinary turns carry neither field and are not checked
    check_runtime_artifact_result(make_params(), empty)


async def test_validate_capability_may_be_async_and_failures_fail_closed() -> None:
    class AsyncCap:
        async def validate(self, artifact: RuntimeArtifact) -> bool:
            return True

    class Raising:
        def validate(self, artifact: RuntimeArtifact) -> bool:
            raise OSError("binary vanished")

    h1, h2 = FakeHarness("a"), FakeHarness("b")
    h1.runtime_artifact = AsyncCap()  # type: ignore[attr-defined]
    h2.runtime_artifact = Raising()  # type: ignore[attr-defined]
    assert await validate_runtime_artifact_binding(h1, ART) is True  # type: ignore[arg-type]
    assert await validate_runtime_artifact_binding(h2, ART) is False  # type: ignore[arg-type]
