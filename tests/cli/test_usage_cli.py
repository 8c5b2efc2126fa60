"""`clawharness usage`: the turns' spend by day, agent, model, ... as tables and JSON;
`agent` refuses a turn a budget has no room for, naming the key to raise."""

from __future__ import annotations

import time
from pathlib import Path

from cli_rig import assert_envelope, invoke, only_json, scripted_config

SCRIPT = {"responses": [{"match": ".*", "repeat": True, "text": "hi",
                         "usage": {"input_tokens": 2000, "output_tokens": 1000}}]}
#: $1 / $2 per million: each turn costs $0.004
PRICED = {"models": {"providers": {"local": {"cost": {"input": 1.0, "output": 2.0}}}}}


def test_usage_sums_the_turns_by_day_and_by_session(tmp_path: Path) -> None:
    with scripted_config(tmp_path, SCRIPT, PRICED) as config:
        for session in ("a", "a", "b"):
            assert invoke("agent", "-c", str(config), "--session", session, "-m", "hi",
                          "--json").exit_code == 0
        by_day = only_json(invoke("usage", "-c", str(config), "--json"))
        (row,) = by_day["rows"]
        assert row["group"] == time.strftime("%Y-%m-%d", time.gmtime())
        assert (row["turns"], row["inputTokens"], row["outputTokens"]) == (3, 6000, 3000)
        assert abs(row["costUsd"] - 0.012) < 1e-9
        assert by_day["total"]["turns"] == 3
        by_session = only_json(invoke("usage", "-c", str(config), "--by", "session",
                                      "--json"))
        assert {r["group"]: r["turns"] for r in by_session["rows"]} == {
            "agent:main:a": 2, "agent:main:b": 1}
        one = only_json(invoke("usage", "-c", str(config), "--session", "a", "--json"))
        assert [(r["turns"], round(r["costUsd"], 9)) for r in one["rows"]] == [(2, 0.008)]
        table = invoke("usage", "-c", str(config), "--by", "model")
        assert table.exit_code == 0
        assert "local/m" in table.stdout and "$0.0120" in table.stdout


def test_an_unpriced_model_shows_no_cost(tmp_path: Path) -> None:
    with scripted_config(tmp_path, SCRIPT) as config:
        invoke("agent", "-c", str(config), "-m", "hi", "--json")
        data = only_json(invoke("usage", "-c", str(config), "--by", "runtime", "--json"))
        assert data["rows"][0]["costUsd"] is None and data["rows"][0]["unpricedTurns"] == 1
        assert "—" in invoke("usage", "-c", str(config)).stdout


def test_a_refused_turn_names_the_budget_and_the_key_to_raise(tmp_path: Path) -> None:
    with scripted_config(tmp_path, SCRIPT, {"budgets": {"daily": {"turns": 1}}}) as config:
        assert invoke("agent", "-c", str(config), "-m", "hi", "--json").exit_code == 0
        error = assert_envelope(invoke("agent", "-c", str(config), "-m", "hi", "--json"),
                                "budget_exceeded")
        assert "the daily budget" in error["message"]
        assert "budgets.daily.turns" in error["hint"]


def test_an_unknown_grouping_is_refused(tmp_path: Path) -> None:
    with scripted_config(tmp_path, SCRIPT) as config:
        result = invoke("usage", "-c", str(config), "--by", "week")
        assert result.exit_code != 0
