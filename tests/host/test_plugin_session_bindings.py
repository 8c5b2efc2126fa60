"""Session bindings made through the SDK live and die with their host session, and a
reply the transcript would not hold is refused: both without the plugin writing a hook."""

from __future__ import annotations

from typing import Any

import host_binding_plugins as fakes

from clawharness.host import Host

PLUGINS = {"load": ["host_binding_plugins:entry"]}


def explicit(runtime: str) -> dict[str, Any]:
    return {"defaults": {"model": "scripted/m1",
                         "models": {"scripted/m1": {"agentRuntime": {"id": runtime}}}}}


async def binding_rows(host: Host) -> list[Any]:
    return list(await host.store.state_list("counting.bindings"))


async def test_a_reset_clears_the_binding_and_the_next_turn_binds_afresh(
        scripted_host: Any) -> None:
    fakes.REMOVED.clear()
    host, _ = await scripted_host({"responses": []}, plugins=PLUGINS,
                                  agents=explicit("counting"))
    first = await host.run_turn("s", "one")
    second = await host.run_turn("s", "two")
    assert first.text.startswith("turn 1 of ") and second.text.startswith("turn 2 of ")
    native = first.text.rsplit(" ", 1)[1]
    assert second.text.endswith(native)
    assert len(await binding_rows(host)) == 1

    await host.reset_session("s")
    assert await binding_rows(host) == []
    assert fakes.REMOVED == [("main", "agent:main:s")]
    third = await host.run_turn("s", "three")
    assert third.text.startswith("turn 1 of ") and not third.text.endswith(native)


async def test_deleting_the_session_deletes_its_binding(scripted_host: Any) -> None:
    fakes.REMOVED.clear()
    host, _ = await scripted_host({"responses": []}, plugins=PLUGINS,
                                  agents=explicit("counting"))
    await host.run_turn("gone", "one")
    await host.run_turn("kept", "one")
    assert await host.delete_session("gone")
    rows = await binding_rows(host)
    assert [row.key for row in rows] == ["main:agent:main:kept"]
    assert fakes.REMOVED == [("main", "agent:main:gone")]


async def test_a_reply_only_in_assistant_texts_fails_the_turn_and_keeps_the_prompt(
        scripted_host: Any) -> None:
    host, _ = await scripted_host({"responses": []}, plugins=PLUGINS,
                                  agents=explicit("texts-only"))
    result = await host.run_turn("t", "hello there")
    assert result.terminal == "failed"
    assert result.error is not None
    assert "a reply nobody stores" in result.error and "messages_snapshot" in result.error
    entries = await host.history("t")
    assert [(e.role, e.text) for e in entries] == [("user", "hello there")]
