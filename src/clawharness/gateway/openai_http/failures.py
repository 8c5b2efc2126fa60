"""How a turn that failed is answered, so that no client retry runs it a second time.

OpenAI's SDKs (and every Stainless-made SDK) retry 408, 409, 429 and any 5xx twice unless
the answer carries `x-should-retry: false` (or `true`, which they obey too). A turn is not
a pure function: by the time it failed it may have run tools and written its transcript,
and a request without a session of its own would be retried into a new session. So a
failure says `x-should-retry: true` only when a retry cannot repeat anything:

- `session_busy`: another turn held the session past `sessions.writerWaitSeconds`; this
  one never started (409, as the SDKs expect of a lock timeout);
- a provider outage (rate limit, 5xx, unreachable, timed out, after the model fallback
  chain) before any tool ran, *and* the request carried an `Idempotency-Key`: its retry
  then runs on the first attempt's session (`idempotency`), never in a new one.

Everything else says `x-should-retry: false`. The statuses follow what the failure is
(docs/http-api.md has the table). Pure.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from clawharness.gateway.openai_http.answers import TurnAnswer
from clawharness.gateway.openai_http.errors import OpenAiHttpError

__all__ = ["CLIENT_TOOL_ERRORS", "PROVIDER_OUTAGES", "RETRY_AFTER_SECONDS", "Failure", "classify", "failure_error",
           "retry_safe"]

#: the provider failures a later attempt may not meet (the host's provider error codes)
PROVIDER_OUTAGES: Final = frozenset({"rate_limit", "server_error", "provider_unreachable",
                                     "provider_timeout"})
#: the turn refused the request's own tools or tool results (`ClientToolError`)
CLIENT_TOOL_ERRORS: Final = frozenset({"client_tool_invalid", "client_tools_unsupported"})
#: what `Retry-After` says when a retry is safe
RETRY_AFTER_SECONDS: Final = {"session_busy": 1, "provider_outage": 1}


@dataclass(frozen=True, slots=True)
class Failure:
    """A failed turn's HTTP answer: status, OpenAI error `type` and `code`, and whether
    a client may retry it (`retry`; `retry_after` seconds)."""

    status: int
    type: str
    code: str
    retry: bool
    retry_after: int | None = None


def retry_safe(answer: TurnAnswer) -> bool:
    """Whether running this request's turn again repeats nothing the first run did:
    it never started (`session_busy`), or the provider failed before any tool ran."""
    if answer.ok or answer.text:
        return False
    if answer.ending == "refused":
        return answer.error_type == "session_busy"
    return (answer.ending == "failed" and answer.error_type in PROVIDER_OUTAGES
            and answer.tools_ran == 0)


def classify(answer: TurnAnswer, *, idempotent: bool) -> Failure:
    """The HTTP answer of a failed turn (`idempotent`: the request carried an
    `Idempotency-Key`, so its retry continues this run's session)."""
    code = answer.error_type or "turn_failed"
    if answer.ending == "refused" and code == "session_busy":
        return Failure(409, "conflict_error", code, retry=True,
                       retry_after=RETRY_AFTER_SECONDS["session_busy"])
    if answer.ending == "failed" and code in PROVIDER_OUTAGES:
        retry = idempotent and retry_safe(answer)
        return Failure(503, "server_error", code, retry=retry,
                       retry_after=RETRY_AFTER_SECONDS["provider_outage"] if retry else None)
    if code == "budget_exceeded":  # a budget has no room: the turn was not started, and a
        # retry would meet the same budget (OpenAI's answer when a quota is spent)
        return Failure(429, "insufficient_quota", code, retry=False)
    if code in CLIENT_TOOL_ERRORS:  # the request's tools or tool results: nothing ran
        return Failure(400, "invalid_request_error", code, retry=False)
    if code == "context_overflow":
        return Failure(400, "invalid_request_error", "context_length_exceeded", retry=False)
    if code == "auth":  # the provider refused the host's credentials: the host's problem
        return Failure(502, "server_error", "provider_auth_failed", retry=False)
    if answer.ending == "timeout":
        return Failure(504, "server_error", code, retry=False)
    if answer.ending == "interrupted":
        return Failure(503, "server_error", code, retry=False)
    return Failure(500, "server_error", code, retry=False)


def failure_error(answer: TurnAnswer, *, idempotent: bool,
                  headers: dict[str, str] | None = None) -> OpenAiHttpError:
    """The `OpenAiHttpError` a failed turn is answered with (headers included)."""
    failure = classify(answer, idempotent=idempotent)
    out = {**(headers or {}), "x-should-retry": "true" if failure.retry else "false"}
    if failure.retry_after is not None:
        out["retry-after"] = str(failure.retry_after)
    message = f"the agent turn failed: {answer.error or 'no reply'}"
    if failure.status == 503 and not failure.retry and retry_safe(answer):
        message += (" (send an Idempotency-Key header to let a client retry this safely: "
                    "the retry then continues the same session)")
    return OpenAiHttpError(failure.status, message, type_=failure.type, code=failure.code,
                           headers=out)
