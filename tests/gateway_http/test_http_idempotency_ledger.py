"""The keyed requests' records in a real store, and the pure failure classes."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from clawharness.gateway.openai_http.answers import TurnAnswer
from clawharness.gateway.openai_http.failures import classify, retry_safe
from clawharness.gateway.openai_http.idempotency import (
    NAMESPACE,
    RequestIdentity,
    RequestLedger,
    request_identity,
)
from clawharness.gateway.openai_http.memory import SessionMemory
from clawharness.gateway.openai_http.turns import RunKeeper, TurnRequest, begin_turn
from clawharness.store.sqlite import SqliteStore


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[SqliteStore]:
    opened = SqliteStore(tmp_path / "store.db")
    await opened.open()
    try:
        yield opened
    finally:
        await opened.close()


def identity(key: str = "k", body: dict[str, object] | None = None,
             caller: str = "token") -> RequestIdentity:
    return request_identity(key, caller=caller, endpoint="/v1/chat/completions",
                            body=body or {"messages": ["hi"]}, routing={"agent": None})


def test_the_identity_scopes_the_key_and_fingerprints_the_request() -> None:
    assert identity().record_key == identity().record_key
    assert identity(caller="other").record_key != identity().record_key
    assert identity(body={"messages": ["other"]}).record_key == identity().record_key
    assert identity(body={"messages": ["other"]}).fingerprint != identity().fingerprint
    assert "token" not in identity().record_key and len(identity().record_key) == 64


async def test_one_claim_wins_and_the_answer_is_kept_for_its_ttl(store: SqliteStore) -> None:
    clock = Clock()
    ledger = RequestLedger(store, ttl=100, clock=clock)
    asked = identity()
    claimed = await ledger.claim(asked, run_id="r1", session_key="agent:main:s", created=5)
    assert claimed is not None and claimed.state == "running"
    assert await ledger.claim(asked, run_id="r2", session_key="agent:main:t", created=6) is None
    answer = TurnAnswer(True, "hello", "ok", input_tokens=3, output_tokens=2)
    done = await ledger.finish(asked, claimed, answer, retryable=False)
    assert done is not None
    stored = await ledger.get(asked)
    assert stored is not None and stored.answer == answer and stored.run_id == "r1"
    # a stale generation cannot overwrite it
    assert await ledger.finish(asked, claimed, answer, retryable=True) is None
    clock.now += 99
    assert await ledger.sweep() == 0
    clock.now += 2
    assert await ledger.sweep() == 1
    assert await ledger.get(asked) is None


async def test_a_claim_whose_lease_ran_out_is_answered_as_lost(store: SqliteStore) -> None:
    clock = Clock()
    ledger = RequestLedger(store, lease=10, clock=clock)
    asked = identity("lost")
    claimed = await ledger.claim(asked, run_id="r1", session_key="agent:main:s", created=5)
    assert claimed is not None and not claimed.lease_lost(clock.now)
    renewed = await ledger.renew(asked, claimed)
    assert renewed is not None and renewed.generation == claimed.generation + 1
    # the process running it stopped renewing: a retry finds it lost, runs nothing
    record = await ledger.get(asked)
    assert record is not None and record.lease_lost(clock.now + 11)


async def test_a_lost_claim_is_settled_for_the_retry_without_a_turn(
        store: SqliteStore) -> None:
    clock = Clock()
    ledger = RequestLedger(store, lease=0.0, clock=clock)
    asked = identity("gone")
    assert await ledger.claim(asked, run_id="r1", session_key="agent:main:s", created=5)

    class NoRuns:
        def get(self, run_id: str) -> None:
            return None

        def start(self, *args: object) -> None:
            raise AssertionError("a lost request must not run its turn again")

    clock.now += 1
    async def no_history(*_args: object, **_kwargs: object) -> list[object]:
        return []

    keeper = RunKeeper(SessionMemory(store), ledger, no_history)  # type: ignore[arg-type]
    source = await begin_turn(NoRuns(), keeper,  # type: ignore[arg-type]
                              TurnRequest("chatcmpl", "agent:main:t", "main", "hi"),
                              identity=asked)
    answer = await source.answer()
    assert (source.run_id, source.session_key, source.replayed) == ("r1", "agent:main:s", True)
    assert answer.error_type == "idempotent_request_lost" and not answer.ok


async def test_an_unreadable_record_is_refused_by_name_and_swept(store: SqliteStore) -> None:
    ledger = RequestLedger(store)
    asked = identity("bad")
    await store.state_insert_if_absent(NAMESPACE, asked.record_key, {"v": 1, "state": "odd"})
    with pytest.raises(ValueError, match="state 'odd'"):
        await ledger.get(asked)
    assert await ledger.sweep() == 1


@pytest.mark.parametrize(("answer", "idempotent", "status", "code", "retry"), [
    (TurnAnswer(False, "", "failed", error_type="provider_unreachable"), True, 503,
     "provider_unreachable", True),
    (TurnAnswer(False, "", "failed", error_type="rate_limit"), False, 503, "rate_limit", False),
    (TurnAnswer(False, "", "failed", error_type="server_error", tools_ran=1), True, 503,
     "server_error", False),
    (TurnAnswer(False, "", "refused", error_type="session_busy"), False, 409, "session_busy",
     True),
    (TurnAnswer(False, "", "failed", error_type="context_overflow"), True, 400,
     "context_length_exceeded", False),
    (TurnAnswer(False, "", "failed", error_type="auth"), True, 502, "provider_auth_failed",
     False),
    (TurnAnswer(False, "", "timeout", error_type="timeout"), True, 504, "timeout", False),
    (TurnAnswer(False, "", "interrupted", error_type="run_interrupted"), True, 503,
     "run_interrupted", False),
    (TurnAnswer(False, "", "aborted", error_type="aborted"), True, 500, "aborted", False),
    (TurnAnswer(False, "", "refused", error_type="model_ref_invalid"), True, 500,
     "model_ref_invalid", False),
    (TurnAnswer(False, "", "failed", error_type="turn_failed"), True, 500, "turn_failed",
     False),
    (TurnAnswer(False, "", "refused", error_type="client_tools_unsupported"), True, 400,
     "client_tools_unsupported", False),
    (TurnAnswer(False, "", "refused", error_type="client_tool_invalid"), False, 400,
     "client_tool_invalid", False),
])
def test_failure_classes(answer: TurnAnswer, idempotent: bool, status: int, code: str,
                         retry: bool) -> None:
    failure = classify(answer, idempotent=idempotent)
    assert (failure.status, failure.code, failure.retry) == (status, code, retry)


def test_only_a_failure_that_did_nothing_is_retry_safe() -> None:
    assert retry_safe(TurnAnswer(False, "", "failed", error_type="provider_timeout"))
    assert not retry_safe(TurnAnswer(False, "partial", "failed",
                                     error_type="provider_timeout"))
    assert not retry_safe(TurnAnswer(False, "", "failed", error_type="provider_timeout",
                                     tools_ran=2))
    assert not retry_safe(TurnAnswer(True, "ok", "ok"))
    assert not retry_safe(TurnAnswer(False, "", "timeout", error_type="timeout"))
