"""Accepted `sessions_spawn` results become `AcceptedSessionSpawn` records."""

from __future__ import annotations

from clawharness.runtime_plan.spawns import (
    AcceptedSessionSpawn,
    has_accepted_session_spawn,
    normalize_accepted_session_spawn_result,
)


def test_an_accepted_spawn_is_trimmed_and_keeps_completion_intent() -> None:
    result = {
        "details": {
            "status": "accepted",
            "runId": " run-1 ",
            "childSessionKey": " agent:main:subagent:a ",
            "expectsCompletionMessage": True,
        }
    }
    spawn = normalize_accepted_session_spawn_result(result)
    assert spawn == AcceptedSessionSpawn("run-1", "agent:main:subagent:a", True)


def test_missing_or_loose_completion_intent_counts_as_false() -> None:
    for intent in (None, "true", 1):
        details: dict[str, object] = {"status": "accepted", "runId": "r", "childSessionKey": "k"}
        if intent is not None:
            details["expectsCompletionMessage"] = intent
        spawn = normalize_accepted_session_spawn_result({"details": details})
        assert spawn is not None
        assert spawn.expects_completion_message is False


def test_unaccepted_or_incomplete_receipts_are_none() -> None:
    assert normalize_accepted_session_spawn_result(None) is None
    assert normalize_accepted_session_spawn_result({"details": {"status": "Accepted"}}) is None
    blank = {"details": {"status": "accepted", "runId": "  ", "childSessionKey": "k"}}
    assert normalize_accepted_session_spawn_result(blank) is None
    # The receipt must sit under `details`; a bare one proves nothing.
    bare = {"status": "accepted", "runId": "r", "childSessionKey": "k"}
    assert normalize_accepted_session_spawn_result(bare) is None
    # U+FEFF is blank around an id, as the original trims.
    bom = {"details": {"status": "accepted", "runId": "\ufeffr\ufeff", "childSessionKey": "k"}}
    spawn = normalize_accepted_session_spawn_result(bom)
    assert spawn is not None and spawn.run_id == "r"


def test_a_collection_reports_whether_it_holds_a_spawn() -> None:
    assert not has_accepted_session_spawn(None)
    assert not has_accepted_session_spawn([])
    assert has_accepted_session_spawn([AcceptedSessionSpawn("r", "k")])
