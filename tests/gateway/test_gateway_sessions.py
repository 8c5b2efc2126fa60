"""Session methods and session change events, ticks, and the TUI's start-up calls."""

from __future__ import annotations

from pathlib import Path

import pytest
from gateway_support import FakeHost, Rig, next_event, running_gateway

from clawharness.config.schema import ClawConfig
from clawharness.gateway.client import GatewayRequestError


async def test_sessions_list_and_describe_show_the_sessions_turns_created(rig: Rig) -> None:
    client = await rig.client()
    async with client:
        await client.agent("one", idempotency_key="k1", sessionKey="alpha")
        await client.agent("two", idempotency_key="k2", sessionKey="agent:main:beta")
        listing = await client.request("sessions.list", {})
        keys = [row["key"] for row in listing["sessions"]]
        assert keys == ["agent:main:beta", "agent:main:alpha"]
        assert listing["count"] == 2 and listing["totalCount"] == 2
        assert listing["hasMore"] is False and listing["nextOffset"] is None
        assert listing["defaults"]["modelProvider"] == "scripted"
        row = listing["sessions"][0]
        assert row["sessionId"] and row["agentId"] == "main" and row["hasActiveRun"] is False
        assert row["model"] == "m" and row["modelProvider"] == "scripted"
        page = await client.request("sessions.list", {"limit": 1})
        assert [r["key"] for r in page["sessions"]] == ["agent:main:beta"]
        assert page["hasMore"] is True and page["nextOffset"] == 1
        described = await client.request("sessions.describe", {"key": "alpha"})
        assert described["session"]["key"] == "agent:main:alpha"
        missing = await client.request("sessions.describe", {"key": "nowhere"})
        assert missing == {"session": None}


async def test_subscribers_see_session_changes_and_other_clients_runs(rig: Rig) -> None:
    watcher = await rig.client()
    runner = await rig.client()
    async with watcher, runner:
        events = watcher.events()
        assert await watcher.request("sessions.subscribe", {}) == {"subscribed": True}
        await runner.agent("hi", idempotency_key="k1", sessionKey="work")
        chat = await next_event(events, lambda f: f["event"] == "chat"
                                and f["payload"]["state"] == "final")
        assert chat["payload"]["runId"] == "k1"
        changed = await next_event(events, lambda f: f["event"] == "sessions.changed")
        assert changed["payload"]["sessionKey"] == "agent:main:work"
        assert changed["payload"]["phase"] == "end" and changed["payload"]["runId"] == "k1"
        admin = await rig.client(scopes=["operator.admin"])
        async with admin:
            before = (await admin.request("sessions.describe", {"key": "work"}))["session"]
            reset = await admin.request("sessions.reset", {"key": "work", "reason": "new"})
            assert reset["ok"] is True and reset["key"] == "agent:main:work"
            assert reset["entry"]["sessionId"] != before["sessionId"]
            changed = await next_event(events, lambda f: f["event"] == "sessions.changed"
                                       and f["payload"]["reason"] == "new")
            assert changed["payload"]["sessionId"] == reset["entry"]["sessionId"]
            deleted = await admin.request("sessions.delete", {"key": "work"})
            assert deleted == {"ok": True, "key": "agent:main:work", "deleted": True,
                               "archived": False}
            await next_event(events, lambda f: f["event"] == "sessions.changed"
                             and f["payload"]["reason"] == "delete")
            assert (await admin.request("sessions.describe", {"key": "work"}))["session"] is None


async def test_subscribe_with_list_params_returns_the_roster_too(rig: Rig) -> None:
    client = await rig.client()
    async with client:
        await client.agent("hi", idempotency_key="k1")
        reply = await client.request("sessions.subscribe", {"limit": 60})
        assert reply["subscribed"] is True
        assert [r["key"] for r in reply["list"]["sessions"]] == ["agent:main:main"]


async def test_the_main_session_cannot_be_deleted(rig: Rig) -> None:
    admin = await rig.client(scopes=["operator.admin"])
    async with admin:
        with pytest.raises(GatewayRequestError) as caught:
            await admin.request("sessions.delete", {"key": "main"})
        assert caught.value.error["message"] == \
            "Cannot delete the main session (agent:main:main)."


async def test_reset_with_a_stale_expected_session_id_is_refused(rig: Rig) -> None:
    admin = await rig.client(scopes=["operator.admin"])
    async with admin:
        await admin.agent("hi", idempotency_key="k1")
        with pytest.raises(GatewayRequestError) as caught:
            await admin.request("sessions.reset", {"key": "main", "expectedSessionId": "old"})
        assert caught.value.details == {"reason": "session-changed"}


async def test_a_new_command_through_agent_resets_the_session(rig: Rig) -> None:
    admin = await rig.client(scopes=["operator.admin"])
    async with admin:
        await admin.agent("hi", idempotency_key="k1")
        before = (await admin.request("sessions.describe", {"key": "main"}))["session"]
        _acc, final = await admin.agent("/new", idempotency_key="k2")
        assert final["result"]["payloads"][0] == {"text": "✅ New session started.",
                                                  "isStatusNotice": True}
        after = (await admin.request("sessions.describe", {"key": "main"}))["session"]
        assert after["sessionId"] != before["sessionId"]
        assert final["result"]["meta"]["agentMeta"]["sessionId"] == after["sessionId"]
    assert len(rig.host.turns) == 1


async def test_the_tui_start_up_calls_all_succeed(rig: Rig) -> None:
    tui = await rig.client(client_id="openclaw-tui", mode="ui",
                           caps=["agent-kind", "plugin-approvals", "task-suggestions",
                                 "tool-events"])
    async with tui:
        assert await tui.request("sessions.subscribe", {}) == {"subscribed": True}
        agents = await tui.request("agents.list", {})
        assert agents["defaultId"] == "main" and agents["mainKey"] == "main"
        assert [a["id"] for a in agents["agents"]] == ["main"]
        assert await tui.request("question.list", {}) == {"questions": []}
        assert await tui.request("plugin.approval.list", {}) == []
        assert await tui.request("taskSuggestions.list", {}) == {"suggestions": []}
        history = await tui.request("chat.history", {"sessionKey": "agent:main:main",
                                                     "limit": 200})
        assert history["messages"] == [] and history["sessionKey"] == "agent:main:main"
        commands = (await tui.request("commands.list", {}))["commands"]
        assert {c["name"] for c in commands} == {"new", "reset"}
        assert (await tui.request("sessions.describe", {"key": "agent:main:main"})) == {
            "session": None}
        assert (await tui.request("sessions.list", {"agentId": "main", "limit": 1}))[
            "sessions"] == []


async def test_status_reports_sessions_and_the_runtime_adapter(rig: Rig) -> None:
    client = await rig.client(scopes=["operator.admin"])
    async with client:
        await client.agent("hi", idempotency_key="k1")
        status = await client.request("status", {"includeCliProjection": True})
        assert status["sessions"]["count"] == 1
        assert status["sessions"]["byAgent"][0]["agentId"] == "main"
        assert status["sessions"]["recent"][0]["key"] == "agent:main:main"
        assert status["cliProjection"]["agents"]["rows"] == [{"id": "main"}]
        assert status["heartbeat"]["defaultAgentId"] == "main"
        assert "agentRuntimes" in status
    reader = await rig.client(scopes=["operator.read"])
    async with reader:
        status = await reader.request("status")
        assert status["sessions"]["recent"] == []
        assert status["sessions"]["byAgent"][0]["path"] == "[redacted]"


async def test_ticks_arrive_every_tick_interval(fake_host: FakeHost) -> None:
    async with running_gateway(fake_host, tick_interval_ms=50) as rig:
        client = await rig.client()
        async with client:
            assert client.hello["policy"]["tickIntervalMs"] == 50
            events = client.events()
            first = await next_event(events, lambda f: f["event"] == "tick", timeout=2)
            second = await next_event(events, lambda f: f["event"] == "tick", timeout=2)
            assert second["seq"] == first["seq"] + 1
            assert second["payload"]["ts"] >= first["payload"]["ts"]


async def test_config_get_is_admin_only_and_redacts_secrets(fake_host: FakeHost) -> None:
    from clawharness.config.schema import ClawConfig

    fake_host.config = ClawConfig.model_validate({
        "models": {"providers": {"p": {"apiKey": "sk-secret", "baseUrl": "http://x/v1",
                                       "models": [{"id": "m"}]}}},
        "gateway": {"auth": {"mode": "token", "token": "gw-secret"}}})
    async with running_gateway(fake_host) as rig:
        reader = await rig.client(scopes=["operator.read", "operator.write"])
        async with reader:
            with pytest.raises(GatewayRequestError) as caught:
                await reader.request("config.get", {})
            assert caught.value.details["missingScope"] == "operator.admin"
        admin = await rig.client(scopes=["operator.admin"])
        async with admin:
            snapshot = await admin.request("config.get", {})
    text = repr(snapshot)
    assert "sk-secret" not in text and "gw-secret" not in text
    assert snapshot["runtimeConfig"]["models"]["providers"]["p"]["baseUrl"] == "http://x/v1"
    assert snapshot["runtimeConfig"]["gateway"]["auth"]["token"] == "__OPENCLAW_REDACTED__"


async def test_context_tokens_are_the_configured_context_window(tmp_path: Path) -> None:
    host = FakeHost(state_dir=tmp_path / "state", config=ClawConfig.model_validate({
        "models": {"providers": {"scripted": {"models": [
            {"id": "m", "contextWindow": 32768}, {"id": "bare"}]}}},
        "agents": {"defaults": {"model": "scripted/m"},
                   "entries": {"other": {"model": "scripted/bare"}}}}))
    async with running_gateway(host) as rig:
        client = await rig.client(scopes=["operator.admin"])
        async with client:
            await client.agent("hi", idempotency_key="k1")
            listing = await client.request("sessions.list", {})
            assert listing["defaults"]["contextTokens"] == 32768
            other = await client.request("sessions.list", {"agentId": "other"})
            assert other["defaults"]["contextTokens"] is None  # its model row gives none
            status = await client.request("status")
            assert status["sessions"]["defaults"]["contextTokens"] == 32768
            assert status["sessions"]["recent"][0]["contextTokens"] == 32768
