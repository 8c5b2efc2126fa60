"""The model fallback chain around selection (seed 004 "Selection policy", digest §2.5)."""

from __future__ import annotations

from typing import Any

import host_fake_plugins as fakes

from clawharness.records.turn_result import ModelFallback


def two_providers(primary_runtime: str | None = None,
                  fallback_runtime: str | None = None) -> dict[str, Any]:
    def provider(text: str, runtime: str | None) -> dict[str, Any]:
        row: dict[str, Any] = {"id": "m", "params": {"script": {"responses": [{"text": text}]}}}
        if runtime:
            row["agentRuntime"] = {"id": runtime}
        return {"api": "scripted", "models": [row]}
    return {"providers": {"first": provider("from first", primary_runtime),
                          "second": provider("from second", fallback_runtime),
                          "third": provider("from third", None)}}


async def test_a_builtin_failure_before_any_output_falls_back_to_the_next_model(
        scripted_host: Any) -> None:
    host, _ = await scripted_host(
        {"responses": [{"error": {"status": 500, "message": "primary down"}}]},
        agents={"defaults": {"model": {"primary": "scripted/m1", "fallbacks": ["second/m"]}}},
        models={"providers": {**two_providers()["providers"], "scripted": {
            "baseUrl": "http://127.0.0.1:9/v1", "api": "openai-responses", "apiKey": "k",
            "models": [{"id": "m1", "params": {"maxRetries": 0}}]}}},
    )
    result = await host.run_turn("fb", "hello")
    assert (result.terminal, result.text) == ("ok", "from second")
    assert result.fallbacks[0].model == "scripted/m1"
    assert result.model == "second/m"
    entries = await host.history("fb")
    assert [e.role for e in entries].count("user") == 1  # the prompt is stored once
    assert (await host.get_session("fb")).model_ref == "scripted/m1"  # the session keeps its model


async def test_an_unscoped_preflight_error_ends_the_whole_chain(scripted_host: Any) -> None:
    fakes.CALLS.clear()
    host, _ = await scripted_host(
        {"responses": []}, plugins={"load": ["host_fake_plugins:preflight_entry"]},
        models=two_providers("unscoped", None),
        agents={"defaults": {"model": {"primary": "first/m", "fallbacks": ["second/m"]}}})
    result = await host.run_turn("u", "hi")
    assert result.terminal == "failed" and "native binary missing" in (result.error or "")
    assert fakes.CALLS == {"unscoped": 1}


async def test_a_harness_scoped_preflight_skips_only_candidates_on_that_harness(
        scripted_host: Any) -> None:
    fakes.CALLS.clear()
    host, _ = await scripted_host(
        {"responses": []}, plugins={"load": ["host_fake_plugins:preflight_entry"]},
        models=two_providers("scoped", "scoped"),
        agents={"defaults": {"model": {"primary": "first/m",
                                       "fallbacks": ["second/m", "third/m"]}}})
    result = await host.run_turn("s", "hi")
    assert (result.terminal, result.text, result.runtime) == ("ok", "from third", "openclaw")
    assert fakes.CALLS == {"scoped": 1}
    assert result.fallbacks[1] == ModelFallback("second/m", skipped="harness-scoped preflight")


async def test_a_plugin_failure_after_claiming_is_never_replayed(scripted_host: Any) -> None:
    fakes.CALLS.clear()
    host, _ = await scripted_host(
        {"responses": []}, plugins={"load": ["host_fake_plugins:preflight_entry"]},
        models=two_providers("exploding", None),
        agents={"defaults": {"model": {"primary": "first/m", "fallbacks": ["second/m"]}}})
    result = await host.run_turn("x", "hi")
    assert result.terminal == "failed" and "crashed" in (result.error or "")
    assert fakes.CALLS == {"exploding": 1}
    assert result.fallbacks == ()
