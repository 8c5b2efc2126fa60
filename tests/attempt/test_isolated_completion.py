"""Isolated completion V2: scenarios 38-40, auth ownership and the shared deadline."""

from __future__ import annotations

import asyncio
import time
from dataclasses import replace
from typing import Any

import pytest

from clawharness.attempt.isolated import (
    HarnessAuthorization,
    HostAuthorization,
    IsolatedCompletionError,
    IsolatedCompletionParams,
    IsolatedCompletionRequest,
    complete_isolated,
)
from clawharness.harness.types import PreparedAuth, ResolvedModel

REQUEST = IsolatedCompletionRequest(
    provider="openai", model_id="gpt-x", system_prompt="be brief", prompt="title this"
)
HOST = HostAuthorization(ResolvedModel("openai", "gpt-x", max_tokens=256),
                         PreparedAuth(source="profile", api_key="sk-host", profile_id="p0"))
STORE = {"profiles": {"p1": {"key": "k1"}, "p2": {"key": "k2"}, "p3": {"key": "k3"}}}


def assistant(text: str = "A title", stop: str = "stop", **extra: Any) -> dict[str, Any]:
    return {"assistant": {"role": "assistant", "stopReason": stop, "provider": "openai",
                          "model": "gpt-x", "content": [{"type": "text", "text": text}],
                          "usage": {"input": 3, "output": 2}, **extra}}


class V2Harness:
    id = "native"
    label = "Native"

    def __init__(self, *answers: Any) -> None:
        self.answers = list(answers)
        self.calls: list[IsolatedCompletionParams] = []

    async def run_isolated_completion_v2(self, params: IsolatedCompletionParams) -> Any:
        self.calls.append(params)
        answer = self.answers.pop(0)
        if isinstance(answer, BaseException):
            raise answer
        if callable(answer):
            return await answer(params)
        return answer


def harness_auth(profile: str) -> HarnessAuthorization:
    return HarnessAuthorization(plan={"kind": "profile"}, auth_profile_store=STORE,
                                profile_id=profile)


def soon(seconds: float = 5.0) -> float:
    return time.monotonic() + seconds


async def test_a_plain_stop_answer_is_accepted_with_its_owner() -> None:
    harness = V2Harness(assistant())
    result = await complete_isolated(harness, REQUEST, auth_attempts=[HOST], deadline=soon())
    assert (result.text, result.owner_kind, result.owner_id) == ("A title", "harness", "native")
    params = harness.calls[0]
    assert params.tools == ()
    assert params.authorization is HOST  # host auth is handed over exactly


@pytest.mark.parametrize(
    "answer",
    [
        {"assistant": {"role": "assistant", "stopReason": "stop", "content": [
            {"type": "text", "text": "x"}, {"type": "toolCall", "id": "1", "name": "exec"}]}},
        assistant(stop="error", errorMessage="boom"),
        assistant(text="   "),
    ],
)
async def test_scenario_38_unacceptable_output_is_rejected(answer: Any) -> None:
    with pytest.raises(IsolatedCompletionError) as caught:
        await complete_isolated(V2Harness(answer), REQUEST, auth_attempts=[HOST], deadline=soon())
    assert caught.value.code == "output-rejected"


async def test_scenario_38_strict_visible_accepts_empty_text_and_length_stops() -> None:
    request = replace(REQUEST, output_text_policy="strict-visible")
    empty = await complete_isolated(V2Harness(assistant(text="")), request,
                                    auth_attempts=[HOST], deadline=soon())
    assert empty.text == ""
    thinking_then_text = {"assistant": {"role": "assistant", "stopReason": "length", "content": [
        {"type": "thinking", "thinking": "hm"}, {"type": "text", "text": " cut off "}]}}
    cut = await complete_isolated(V2Harness(thinking_then_text), REQUEST,
                                  auth_attempts=[HOST], deadline=soon())
    assert cut.text == "cut off"


async def test_scenario_39_a_rate_limited_profile_moves_to_the_next_within_one_deadline() -> None:
    harness = V2Harness(
        assistant(text="", stop="error", errorMessage="429 Too Many Requests: rate limit reached"),
        assistant("From p2"),
    )
    deadline = soon(5)
    result = await complete_isolated(harness, REQUEST,
                                     auth_attempts=[harness_auth("p1"), harness_auth("p2")],
                                     deadline=deadline)
    assert result.text == "From p2"
    first, second = harness.calls
    # each call sees only its own profile, and the budget shrinks instead of restarting
    assert dict(first.authorization.auth_profile_store["profiles"]) == {"p1": {"key": "k1"}}
    assert dict(second.authorization.auth_profile_store["profiles"]) == {"p2": {"key": "k2"}}
    assert second.timeout_ms <= first.timeout_ms <= 5000


async def test_billing_failures_also_rotate_but_other_errors_answers_do_not() -> None:
    billing = assistant(text="", stop="error", failoverReason="billing")
    rotated = await complete_isolated(V2Harness(billing, assistant("ok")), REQUEST,
                                      auth_attempts=[harness_auth("p1"), harness_auth("p2")],
                                      deadline=soon())
    assert rotated.text == "ok"
    harness = V2Harness(assistant(stop="error", errorMessage="invalid request"), assistant("no"))
    with pytest.raises(IsolatedCompletionError):
        await complete_isolated(harness, REQUEST,
                                auth_attempts=[harness_auth("p1"), harness_auth("p2")],
                                deadline=soon())
    assert len(harness.calls) == 1


async def test_when_every_profile_fails_the_first_error_is_rethrown() -> None:
    harness = V2Harness(RuntimeError("p1 down"), RuntimeError("p2 down"))
    with pytest.raises(RuntimeError, match="p1 down"):
        await complete_isolated(harness, REQUEST,
                                auth_attempts=[harness_auth("p1"), harness_auth("p2")],
                                deadline=soon())
    assert len(harness.calls) == 2


async def test_the_shared_deadline_stops_the_loop() -> None:
    async def stall(_params: IsolatedCompletionParams) -> Any:
        await asyncio.Event().wait()

    harness = V2Harness(stall, assistant("too late"))
    with pytest.raises(IsolatedCompletionError) as caught:
        await complete_isolated(harness, REQUEST,
                                auth_attempts=[harness_auth("p1"), harness_auth("p2")],
                                deadline=soon(0.05))
    assert caught.value.code == "runtime-unavailable"
    assert len(harness.calls) == 1


async def test_scenario_40_a_harness_with_neither_method_is_unsupported() -> None:
    class Plain:
        id = "plain"

    with pytest.raises(IsolatedCompletionError) as caught:
        await complete_isolated(Plain(), REQUEST, auth_attempts=[HOST], deadline=soon())
    assert caught.value.code == "unsupported"


class LegacyHarness:
    id = "legacy"

    def __init__(self) -> None:
        self.calls: list[IsolatedCompletionParams] = []

    async def run_isolated_completion(self, params: IsolatedCompletionParams) -> Any:
        self.calls.append(params)
        return assistant("legacy answer")


async def test_the_legacy_capability_gets_only_a_prepared_host_credential() -> None:
    harness = LegacyHarness()
    with pytest.raises(IsolatedCompletionError) as caught:
        await complete_isolated(harness, REQUEST, auth_attempts=[harness_auth("p1")],
                                deadline=soon())
    assert caught.value.code == "unsupported"
    assert harness.calls == []
    result = await complete_isolated(harness, REQUEST, auth_attempts=[HOST], deadline=soon())
    assert result.text == "legacy answer"
    assert harness.calls[0].authorization is HOST


async def test_host_models_are_never_substituted_and_max_tokens_are_clamped() -> None:
    other = HostAuthorization(ResolvedModel("anthropic", "claude-x"), PreparedAuth())
    harness = V2Harness(assistant())
    with pytest.raises(IsolatedCompletionError) as caught:
        await complete_isolated(harness, REQUEST, auth_attempts=[other], deadline=soon())
    assert caught.value.code == "input-rejected" and harness.calls == []
    big = IsolatedCompletionRequest(provider="openai", model_id="gpt-x", system_prompt="",
                                    prompt="p", max_tokens=10_000)
    harness = V2Harness(assistant())
    await complete_isolated(harness, big, auth_attempts=[HOST], deadline=soon())
    assert harness.calls[0].stream_params == {"maxTokens": 256}


async def test_a_retired_caller_stops_before_the_next_credential() -> None:
    state = {"current": True}

    def assert_current() -> None:
        if not state["current"]:
            raise RuntimeError("caller retired")

    async def fail_and_retire(_params: IsolatedCompletionParams) -> Any:
        state["current"] = False
        raise RuntimeError("p1 down")

    request = IsolatedCompletionRequest(provider="openai", model_id="gpt-x", system_prompt="",
                                        prompt="p", assert_current=assert_current)
    harness = V2Harness(fail_and_retire, assistant())
    with pytest.raises(RuntimeError, match="caller retired"):
        await complete_isolated(harness, request,
                                auth_attempts=[harness_auth("p1"), harness_auth("p2")],
                                deadline=soon())
    assert len(harness.calls) == 1
