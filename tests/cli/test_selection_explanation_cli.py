"""The session pin: `selectedReason` turns from auto_openclaw to forced_openclaw on the
second turn (the contract's value), and `agent` and `status` say why."""

from __future__ import annotations

import json
from pathlib import Path

from cli_rig import invoke, only_json, scripted_config

SCRIPT = {"responses": [{"match": ".", "text": "hello back", "repeat": True}]}


def test_the_second_turn_is_pinned_and_the_footer_and_status_say_why(tmp_path: Path) -> None:
    with scripted_config(tmp_path, SCRIPT) as config:
        first = invoke("agent", "--config", str(config), "-s", "work", "-m", "hello")
        second = invoke("agent", "--config", str(config), "-s", "work", "-m", "hello again")
        again = json.loads(invoke("agent", "--config", str(config), "-s", "work", "--json",
                                  "-m", "and again").stdout)
        status = invoke("status", "--config", str(config), "--session", "work")
        report = only_json(invoke("status", "--config", str(config), "--session", "work",
                                  "--json"))
    assert first.exit_code == 0 and second.exit_code == 0, second.output
    assert "runtime openclaw (auto_openclaw)" in first.stdout
    assert "keeps this runtime from now on" in first.stdout
    assert "runtime openclaw (forced_openclaw): pinned by this session since its first turn" \
        in second.stdout
    assert "the config alone selects it too: auto_openclaw" in second.stdout
    # the contract's values are unchanged
    assert again["selectedReason"] == "forced_openclaw"
    assert again["pinnedHarnessId"] == "openclaw"
    assert "pinned by this session since its first turn" in status.stdout
    [session] = report["sessions"]
    assert session["pinnedHarnessId"] == "openclaw"
    assert session["model"]["reason"] == "forced_openclaw"
    assert session["withoutPin"]["reason"] == "auto_openclaw"
    assert session["withoutPin"]["runtime"] == "openclaw"
