"""Isolated completion V2: one fresh prompt-only inference through the selected harness.

The harness's `run_isolated_completion_v2(params)` gets a literal empty tool surface,
the prompts, a deadline and exactly one authorization:

- `owner="host"`: the exact transport model and resolved auth; used without
  substitution;
- `owner="harness"`: the prepared runtime auth plan and a credential store scoped to the
  single profile selected for this call.

Core owns the fallback order: it loops over the prepared auth attempts in order, inside
one shared deadline. A returned retryable quota failure (rate_limit or billing) moves to
the next profile like a thrown error; the first error is rethrown when none succeeds.
Only `stop`/`length` answers made of text/thinking blocks are accepted; empty text only
under `output_text_policy="strict-visible"`.

A harness without the V2 capability fails closed (`unsupported`). The deprecated
`run_isolated_completion` is host-auth only: it is used with a prepared host
authorization and never handed an invented credential.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Any, Literal

from clawharness.errors import HarnessError
from clawharness.harness.types import PreparedAuth, ResolvedModel
from clawharness.runtime_plan.failover import classify_failover_reason

__all__ = [
    "HarnessAuthorization",
    "HostAuthorization",
    "IsolatedCompletionError",
    "IsolatedCompletionErrorCode",
    "IsolatedCompletionParams",
    "IsolatedCompletionRequest",
    "IsolatedCompletionResult",
    "complete_isolated",
    "is_retryable_isolated_quota_failure",
    "require_isolated_assistant_text",
    "scope_auth_profile_store",
]

IsolatedCompletionErrorCode = Literal[
    "unsupported", "runtime-unavailable", "input-rejected", "output-rejected"
]


class IsolatedCompletionError(HarnessError):
    """An isolated completion could not run or its output was refused."""

    code: str = "isolated_completion"

    def __init__(self, code: IsolatedCompletionErrorCode, message: str, *,
                 cause: BaseException | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.__cause__ = cause


@dataclass(frozen=True, slots=True)
class HostAuthorization:
    """`owner: "host"`: the exact model and credential to use, no substitution."""

    model: ResolvedModel
    auth: PreparedAuth
    source_auth_fingerprint: str | None = None
    owner: Literal["host"] = "host"


@dataclass(frozen=True, slots=True)
class HarnessAuthorization:
    """`owner: "harness"`: a prepared auth plan; `profile_id` is this call's one profile.

    `auth_profile_store` is the full store core holds; the harness only ever receives the
    slice for `profile_id` (see `scope_auth_profile_store`). `profile_id=None` leaves
    auth to the harness's own native account.
    """

    plan: Mapping[str, Any]
    auth_profile_store: Mapping[str, Any] = field(default_factory=dict)
    profile_id: str | None = None
    owner: Literal["harness"] = "harness"


Authorization = HostAuthorization | HarnessAuthorization


@dataclass(frozen=True, slots=True)
class IsolatedCompletionRequest:
    """What the caller asks for (provider/model ids, prompts and output policy)."""

    provider: str
    model_id: str
    system_prompt: str
    prompt: str
    agent_id: str = "main"
    workspace_dir: str | None = None
    think_level: str | None = None
    output_text_policy: Literal["strict-visible"] | None = None
    max_tokens: int | None = None
    temperature: float | None = None
    #: revalidates the caller's authority; raise to stop before any handoff
    assert_current: Callable[[], None] | None = None


@dataclass(frozen=True, slots=True)
class IsolatedCompletionParams:
    """What `run_isolated_completion_v2` (and the legacy V1 callback) receives."""

    provider: str
    model_id: str
    system_prompt: str
    prompt: str
    timeout_ms: int
    authorization: Authorization
    agent_id: str = "main"
    workspace_dir: str | None = None
    think_level: str | None = None
    output_text_policy: Literal["strict-visible"] | None = None
    stream_params: Mapping[str, Any] = field(default_factory=dict)
    #: the empty model-callable tool surface, stated explicitly
    tools: tuple[()] = ()
    assert_current: Callable[[], None] | None = None


@dataclass(frozen=True, slots=True)
class IsolatedCompletionResult:
    """The accepted answer: `{text, provider, model, owner, usage}`."""

    text: str
    provider: str
    model: str
    owner_kind: Literal["harness"]
    owner_id: str
    usage: Mapping[str, Any] | None = None


# --- acceptance (pure) ----------------------------------------------------------------


def _stop_reason(assistant: Mapping[str, Any]) -> Any:
    return assistant.get("stopReason")


def is_retryable_isolated_quota_failure(assistant: Mapping[str, Any]) -> bool:
    """A returned rate-limit or billing failure made only of text/thinking blocks."""
    if _stop_reason(assistant) != "error":
        return False
    content = assistant.get("content")
    blocks = content if isinstance(content, list) else []
    if not all(isinstance(b, Mapping) and b.get("type") in ("text", "thinking") for b in blocks):
        return False
    reason = assistant.get("failoverReason")
    if reason is None:
        message = assistant.get("errorMessage")
        reason = classify_failover_reason(message) if isinstance(message, str) else None
    return reason in ("rate_limit", "billing")


def require_isolated_assistant_text(assistant: Any) -> str:
    """The joined, trimmed text of an acceptable answer; `output-rejected` otherwise."""
    if not isinstance(assistant, Mapping):
        raise IsolatedCompletionError("output-rejected",
                                      "Isolated completion returned no assistant message.")
    stop = _stop_reason(assistant)
    if stop not in ("stop", "length"):
        message = assistant.get("errorMessage")
        detail = message.strip() if isinstance(message, str) and message.strip() else (
            f"Isolated completion failed with stop reason {stop}."
        )
        raise IsolatedCompletionError("output-rejected", detail)
    content = assistant.get("content")
    parts: list[str] = []
    for block in content if isinstance(content, list) else []:
        kind = block.get("type") if isinstance(block, Mapping) else None
        if kind == "text":
            text = block.get("text")
            parts.append(text if isinstance(text, str) else "")
        elif kind != "thinking":
            raise IsolatedCompletionError(
                "output-rejected", "Isolated completion returned a tool call; the result was rejected."
            )
    return "".join(parts).strip()


def scope_auth_profile_store(store: Mapping[str, Any], profile_id: str | None) -> Mapping[str, Any]:
    """A read-only store holding only `profile_id` (empty when auth is the harness's own)."""
    profiles = store.get("profiles", store)
    if profile_id is None or not isinstance(profiles, Mapping) or profile_id not in profiles:
        return MappingProxyType({"profiles": MappingProxyType({})})
    return MappingProxyType({"profiles": MappingProxyType({profile_id: profiles[profile_id]})})


# --- the loop -------------------------------------------------------------------------


def _stream_params(request: IsolatedCompletionRequest, model_max: int | None) -> dict[str, Any]:
    params: dict[str, Any] = {}
    if request.max_tokens is not None:
        params["maxTokens"] = (
            min(request.max_tokens, model_max) if model_max is not None else request.max_tokens
        )
    if request.temperature is not None:
        params["temperature"] = request.temperature
    return params


def _host_model_matches(request: IsolatedCompletionRequest, auth: HostAuthorization) -> bool:
    return auth.model.provider == request.provider and auth.model.model_id == request.model_id


def _remaining_ms(deadline: float) -> int:
    remaining = deadline - time.monotonic()
    if remaining <= 0:
        raise IsolatedCompletionError("runtime-unavailable", "Isolated completion timed out.")
    return max(1, int(remaining * 1000))


def _result(harness: Any, request: IsolatedCompletionRequest, raw: Any) -> IsolatedCompletionResult:
    assistant = raw.get("assistant") if isinstance(raw, Mapping) else None
    text = require_isolated_assistant_text(assistant)
    if not text and request.output_text_policy != "strict-visible":
        raise IsolatedCompletionError("output-rejected", "Isolated completion returned empty output.")
    assert isinstance(assistant, Mapping)
    usage = assistant.get("usage")
    return IsolatedCompletionResult(
        text=text,
        provider=str(assistant.get("provider") or request.provider),
        model=str(assistant.get("model") or request.model_id),
        owner_kind="harness",
        owner_id=str(getattr(harness, "id", "?")),
        usage=usage if isinstance(usage, Mapping) else None,
    )


def _params(request: IsolatedCompletionRequest, authorization: Authorization, *,
            timeout_ms: int, assert_current: Callable[[], None]) -> IsolatedCompletionParams:
    model_max = authorization.model.max_tokens if isinstance(authorization, HostAuthorization) else None
    if isinstance(authorization, HarnessAuthorization):
        authorization = replace(
            authorization,
            auth_profile_store=scope_auth_profile_store(
                authorization.auth_profile_store, authorization.profile_id
            ),
        )
    return IsolatedCompletionParams(
        provider=request.provider, model_id=request.model_id,
        system_prompt=request.system_prompt, prompt=request.prompt, timeout_ms=timeout_ms,
        authorization=authorization, agent_id=request.agent_id,
        workspace_dir=request.workspace_dir, think_level=request.think_level,
        output_text_policy=request.output_text_policy,
        stream_params=_stream_params(request, model_max), assert_current=assert_current,
    )


async def complete_isolated(
    harness: Any,
    request: IsolatedCompletionRequest,
    *,
    auth_attempts: Sequence[Authorization],
    deadline: float,
) -> IsolatedCompletionResult:
    """Run one isolated completion; `deadline` is a `time.monotonic()` instant for all tries.

    `auth_attempts` are the prepared authorizations in the order core chose. Raises
    `IsolatedCompletionError` (unsupported, runtime-unavailable, input-rejected,
    output-rejected) or the first attempt's own error.
    """

    def assert_current() -> None:
        if request.assert_current is not None:
            request.assert_current()

    assert_current()
    run_v2 = getattr(harness, "run_isolated_completion_v2", None)
    run_v1 = getattr(harness, "run_isolated_completion", None)
    harness_id = getattr(harness, "id", "?")
    if not callable(run_v2) and not callable(run_v1):
        raise IsolatedCompletionError(
            "unsupported", f"Agent harness {harness_id} does not support isolated completion."
        )
    for attempt in auth_attempts:
        if isinstance(attempt, HostAuthorization) and not _host_model_matches(request, attempt):
            raise IsolatedCompletionError(
                "input-rejected",
                f"host authorization is for {attempt.model.provider}/{attempt.model.model_id}, "
                f"not {request.provider}/{request.model_id}; models are never substituted",
            )
    if not callable(run_v2):
        return await _complete_legacy(harness, request, run_v1, auth_attempts, deadline,
                                      assert_current)
    if not auth_attempts:
        raise IsolatedCompletionError("input-rejected", "No prepared authorization to hand over.")

    first_error: BaseException | None = None
    for authorization in auth_attempts:
        assert_current()
        timeout_ms = _remaining_ms(deadline)  # the shared budget is not restarted per profile
        params = _params(request, authorization, timeout_ms=timeout_ms,
                         assert_current=assert_current)
        try:
            async with asyncio.timeout(deadline - time.monotonic()):
                raw = await run_v2(params)
        except TimeoutError as exc:
            # the one shared budget is spent: no later profile may start
            raise IsolatedCompletionError(
                "runtime-unavailable", "Isolated completion timed out.", cause=exc
            ) from exc
        except Exception as exc:
            assert_current()  # a retired caller cannot authorize another credential
            first_error = first_error or exc
            continue
        assert_current()
        assistant = raw.get("assistant") if isinstance(raw, Mapping) else None
        if isinstance(assistant, Mapping) and is_retryable_isolated_quota_failure(assistant):
            # a returned quota failure joins the same profile loop as a thrown one
            try:
                require_isolated_assistant_text(assistant)
            except IsolatedCompletionError as quota:
                first_error = first_error or quota
            continue
        # terminal or tool-bearing output never authorizes another attempt
        return _result(harness, request, raw)
    assert first_error is not None
    raise first_error


async def _complete_legacy(
    harness: Any,
    request: IsolatedCompletionRequest,
    run_v1: Any,
    auth_attempts: Sequence[Authorization],
    deadline: float,
    assert_current: Callable[[], None],
) -> IsolatedCompletionResult:
    host = next((a for a in auth_attempts if isinstance(a, HostAuthorization)), None)
    if host is None:
        raise IsolatedCompletionError(
            "unsupported",
            f"Agent harness {getattr(harness, 'id', '?')} only has the deprecated host-auth "
            "isolated completion and no host credential was prepared for it.",
        )
    timeout_ms = _remaining_ms(deadline)
    params = _params(request, host, timeout_ms=timeout_ms, assert_current=assert_current)
    try:
        async with asyncio.timeout(deadline - time.monotonic()):
            raw = await run_v1(params)
    except TimeoutError as exc:
        raise IsolatedCompletionError(
            "runtime-unavailable", "Isolated completion timed out.", cause=exc
        ) from exc
    assert_current()
    return _result(harness, request, raw)
