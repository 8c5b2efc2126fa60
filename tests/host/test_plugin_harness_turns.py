"""Turns claimed by a plugin harness: finalization, the incomplete-turn warning, agent_end."""

from __future__ import annotations

import asyncio
from typing import Any

import host_fake_plugins as fakes

from clawharness.attempt.side_effects import drain_agent_end_side_effects


async def test_auto_mode_selects_the_supporting_plugin_and_warns_when_it_cannot_finalize(
    scripted_host: Any,
) -> None:
    host, _ = await scripted_host({"responses": []},
                                  plugins={"load": ["host_fake_plugins:entry"]})
    result = await host.run_turn("p", "do it")
    assert (result.runtime, result.selected_reason) == ("quiet", "auto_plugin")
    assert result.terminal == "ok"
    assert result.incomplete_turn_warning
    assert result.text == result.incomplete_turn_warning
    assert (await host.get_session("p")).agent_harness_id == "quiet"


async def test_a_settled_tool_turn_without_text_is_finalized_once(scripted_host: Any) -> None:
    fakes.CALLS["finalize"] = 0
    host, _ = await scripted_host(
        {"responses": []},
        plugins={"load": ["host_fake_plugins:entry"]},
        agents={"defaults": {"model": "scripted/m1",
                             "models": {"scripted/m1": {"agentRuntime": {"id": "finalizing"}}}}},
    )
    result = await host.run_turn("f", "do it")
    assert (result.runtime, result.selected_reason) == ("finalizing", "forced_plugin")
    assert result.text == "all done"
    assert fakes.CALLS["finalize"] == 1
    entries = await host.history("f")
    assert entries[-1].role == "assistant" and entries[-1].text == "all done"


async def test_a_failing_agent_end_hook_never_changes_the_result(scripted_host: Any) -> None:
    fakes.CALLS["agent_end"] = 0
    host, _ = await scripted_host({"responses": [{"text": "hello"}]},
                                  plugins={"load": ["host_fake_plugins:entry"]},
                                  models={"providers": {"other": {
                                      "baseUrl": "http://127.0.0.1:9/v1", "api": "scripted",
                                      "models": [{"id": "m", "params": {"script": {
                                          "responses": [{"text": "hello"}]}}}]}}},
                                  agents={"defaults": {"model": "other/m"}})
    result = await host.run_turn("e", "hi")
    await asyncio.wait_for(drain_agent_end_side_effects(), 5)
    assert result.terminal == "ok" and result.text == "hello"
    assert fakes.CALLS["agent_end"] == 1
