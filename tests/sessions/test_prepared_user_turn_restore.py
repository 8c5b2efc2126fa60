"""A runtime hook may rewrite a user message, but never the host's operational facts."""

from __future__ import annotations

from typing import Any

from clawharness.sessions.user_turn import (
    InputProvenance,
    normalize_input_provenance,
    normalize_persisted_steer_target_run_id,
    restore_prepared_user_turn_operational_meta_for_runtime,
)

PREPARED: dict[str, Any] = {
    "role": "user",
    "content": "deploy it",
    "__openclaw": {"senderIsOwner": True, "intent": "steer", "steerTargetRunId": " run-7 ",
                   "humanMentions": [{"id": "p1"}], "workContext": {"repo": "x"}},
    "provenance": {"kind": "inter_session", "sourceSessionKey": " agent:ops:main ",
                   "sourceChannel": "slack"},
}


def test_a_hook_cannot_forge_or_erase_host_facts() -> None:
    forged = {"role": "user", "content": "deploy it",
              "__openclaw": {"senderIsOwner": False, "intent": "followup", "extra": 1}}
    restored = restore_prepared_user_turn_operational_meta_for_runtime(forged, PREPARED)
    assert restored["provenance"] == {"kind": "inter_session",
                                      "sourceSessionKey": "agent:ops:main",
                                      "originChannel": "slack"}
    assert restored["__openclaw"] == {"extra": 1, "intent": "steer", "steerTargetRunId": "run-7",
                                      "senderIsOwner": True, "humanMentions": [{"id": "p1"}]}
    assert forged["__openclaw"]["intent"] == "followup"  # the input is not modified


def test_rewritten_content_drops_the_facts_about_the_submitted_bytes() -> None:
    rewritten = {"role": "user", "content": "deploy [redacted]",
                 "__openclaw": {"workContext": {"repo": "x"}, "humanMentions": [{"id": "p1"}]}}
    restored = restore_prepared_user_turn_operational_meta_for_runtime(rewritten, PREPARED)
    assert "humanMentions" not in restored["__openclaw"]
    assert "workContext" not in restored["__openclaw"]


def test_content_equality_is_json_equality_where_true_is_not_one() -> None:
    prepared = {"role": "user", "content": [True], "__openclaw": {"humanMentions": []}}
    same = restore_prepared_user_turn_operational_meta_for_runtime(
        {"role": "user", "content": [True]}, prepared)
    assert same["__openclaw"] == {"humanMentions": []}
    other = restore_prepared_user_turn_operational_meta_for_runtime(
        {"role": "user", "content": [1]}, prepared)
    assert "__openclaw" not in other


def test_non_user_messages_and_missing_snapshots_pass_through() -> None:
    assistant = {"role": "assistant", "content": "hi", "__openclaw": {"intent": "x"}}
    assert restore_prepared_user_turn_operational_meta_for_runtime(assistant, PREPARED) is assistant
    user = {"role": "user", "content": "hi"}
    assert restore_prepared_user_turn_operational_meta_for_runtime(user, None) is user


def test_only_known_provenance_and_bounded_run_ids_are_kept() -> None:
    assert normalize_input_provenance({"kind": "nope"}) is None
    assert normalize_input_provenance({"kind": "external_user", "sourceTool": "  "}) == (
        InputProvenance("external_user"))
    assert normalize_persisted_steer_target_run_id("r" * 512) == "r" * 512
    assert normalize_persisted_steer_target_run_id("r" * 513) is None
    # a character outside the BMP counts as two units, as transcripts measure it
    assert normalize_persisted_steer_target_run_id("😀" * 256) == "😀" * 256
    assert normalize_persisted_steer_target_run_id("😀" * 257) is None
    assert normalize_persisted_steer_target_run_id(5) is None
