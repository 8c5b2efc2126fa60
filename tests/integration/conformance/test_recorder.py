"""The recorder in tests/conformance/record/ reproduces the recorded vectors from the real
`openclaw@2026.9.6` on Node 24: the re-recording procedure of tests/conformance/data/
README.md works, and the stored set is what the original does."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
TESTS = HERE.parents[1]
sys.path.insert(0, str(TESTS / "integration" / "gateway"))
sys.path.insert(0, str(TESTS / "conformance" / "record"))
sys.path.insert(0, str(TESTS / "conformance"))

from openclaw_rig import CACHE, OPENCLAW_VERSION, openclaw_cli  # noqa: E402
from record import CREDENTIAL_SHAPES, record, split_credentials  # noqa: E402
from vectors_file import RECORDED  # noqa: E402

from clawharness.conformance.runner import decode_concat  # noqa: E402

pytestmark = pytest.mark.integration


def test_re_recording_the_stored_inputs_gives_the_stored_expectations(tmp_path: Path) -> None:
    openclaw_cli()  # installs the pinned client, or skips saying why
    stored = [json.loads(line) for line in RECORDED.read_text(encoding="utf-8").splitlines()
              if line.strip()]
    inputs = tmp_path / "inputs.jsonl"  # the stored lines without their expectations
    inputs.write_text("".join(json.dumps({k: v for k, v in case.items() if k != "expect"}) + "\n"
                              for case in stored))
    outcome = record(inputs, prefix=CACHE)
    assert outcome.unstable == [] and outcome.dropped == []
    assert [v["id"] for v in outcome.vectors] == [case["id"] for case in stored]
    differ = [case["id"] for case, got in zip(stored, outcome.vectors, strict=True)
              if json.dumps(decode_concat(case["expect"])) != json.dumps(decode_concat(got["expect"]))]
    assert differ == []
    assert OPENCLAW_VERSION == "2026.9.6"


def test_an_engine_crash_is_dropped_and_other_vectors_are_kept(tmp_path: Path) -> None:
    openclaw_cli()
    inputs = tmp_path / "inputs.jsonl"
    lines = [{"id": "ok-1", "fn": "isSubagentSessionKey", "args": ["agent:main:subagent:x"]},
             # a step into a member that is not there: the engine throws a TypeError
             {"id": "crash-1", "fn": "sanitizeToolResult", "args": [],
              "then": [{"call": "nothing.here"}]}]
    inputs.write_text("".join(json.dumps(line) + "\n" for line in lines))
    outcome = record(inputs, prefix=CACHE)
    assert [v["id"] for v in outcome.vectors] == ["ok-1"]
    assert outcome.vectors[0]["expect"] == {"ok": True, "result": True}
    assert outcome.dropped == ["crash-1"]


def test_credential_shaped_results_are_stored_split() -> None:
    key = "AKIA" + "ABCDEFGHIJKLMNOP"
    assert CREDENTIAL_SHAPES.search(key)
    stored = split_credentials({"ok": True, "result": [f"id={key}", "plain"]})
    assert stored["result"][1] == "plain"
    assert "$concat" in stored["result"][0]
    assert decode_concat(stored) == {"ok": True, "result": [f"id={key}", "plain"]}
    assert key not in json.dumps(stored)
