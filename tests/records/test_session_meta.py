"""`SessionMeta`: typed in the core, the original's keys in the stored row."""

from __future__ import annotations

from clawharness.records.session_meta import SessionMeta


def test_typed_fields_are_stored_under_the_original_keys_and_read_back() -> None:
    meta = SessionMeta(model_selection_locked=True, agent_harness_runtime_override="codex",
                       previous_session_id="s-0", reset_at=12.5, label="work",
                       extra={"channel": "cli"})
    stored = meta.to_stored()
    assert stored == {"channel": "cli", "modelSelectionLocked": True,
                      "agentHarnessRuntimeOverride": "codex", "previousSessionId": "s-0",
                      "resetAt": 12.5, "label": "work"}
    assert SessionMeta.from_stored(stored) == meta
    assert SessionMeta().to_stored() == {}


def test_rows_of_older_versions_and_other_tools_load_and_keep_what_is_unknown() -> None:
    old = {"modelSelectionLocked": "yes", "previousSessionId": "", "resetAt": True,
           "label": 7, "origin": {"channel": "telegram"}, "resetAt2": 1}
    meta = SessionMeta.from_stored(old)
    # a known key of the wrong type counts as absent (a lock must be exactly true)
    assert meta == SessionMeta(extra={"origin": {"channel": "telegram"}, "resetAt2": 1})
    assert meta.to_stored() == {"origin": {"channel": "telegram"}, "resetAt2": 1}
    assert SessionMeta.from_stored({"resetAt": 3}).reset_at == 3.0


def test_a_fronts_facts_merge_into_the_stored_meta() -> None:
    meta = SessionMeta(label="work", extra={"acp": {"mode": "default"}})
    merged = meta.merged({"acp": {"mode": "read-only"}, "label": "renamed"})
    assert merged == SessionMeta(label="renamed", extra={"acp": {"mode": "read-only"}})
    assert merged.holds({"acp": {"mode": "read-only"}}) and merged.holds({})
    assert not meta.holds({"acp": {"mode": "read-only"}})
    assert not meta.holds({"missing": None})
