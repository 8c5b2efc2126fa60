"""Role and scope checks per method, and unknown methods, with the original's error shapes."""

from __future__ import annotations

import pytest
from gateway_support import Rig

from clawharness.gateway.client import GatewayRequestError
from clawharness.gateway.scopes import authorize_method, required_scope, scope_satisfied


@pytest.mark.parametrize(("required", "granted", "ok"), [
    ("operator.read", ["operator.write"], True),
    ("operator.read", ["operator.admin"], True),
    ("operator.write", ["operator.read"], False),
    ("operator.admin", ["operator.write", "operator.read"], False),
    ("operator.approvals", ["operator.write"], False),
    ("operator.sessions.read", ["operator.read"], True),
    ("node", ["operator.admin"], False),
])
def test_scope_implications_follow_the_original(required: str, granted: list[str],
                                                ok: bool) -> None:
    assert scope_satisfied(required, granted) is ok


def test_agent_needs_write_but_a_reset_command_needs_admin() -> None:
    assert required_scope("agent", {"message": "hi"}) == "operator.write"
    assert required_scope("agent", {"message": "/new"}) == "operator.admin"
    assert required_scope("agent", {"message": "/reset now please"}) == "operator.admin"
    assert required_scope("agent", {"message": "/newsletter"}) == "operator.write"


def test_sessions_delete_needs_admin_unless_it_only_deletes_archived_sessions() -> None:
    assert required_scope("sessions.delete", {"key": "x"}) == "operator.admin"
    assert required_scope("sessions.delete", {"key": "x", "archivedOnly": True}) == "operator.write"
    assert required_scope("sessions.delete", {"key": "x", "archivedOnly": True,
                                              "emitLifecycleHooks": True}) == "operator.admin"


def test_unclassified_methods_need_admin_and_health_is_open() -> None:
    assert required_scope("config.apply", {}) == "operator.admin"
    assert authorize_method("health", "operator", [], None) is None
    denied = authorize_method("status", "operator", [], None)
    assert denied is not None and denied["details"]["missingScope"] == "operator.read"


async def test_a_read_only_client_cannot_run_a_turn(rig: Rig) -> None:
    client = await rig.client(scopes=["operator.read"])
    async with client:
        with pytest.raises(GatewayRequestError) as caught:
            await client.agent("hello", idempotency_key="k1", timeout=5)
        error = caught.value.error
        assert error["code"] == "FORBIDDEN"
        assert error["message"] == "missing scope: operator.write"
        assert error["details"] == {"code": "MISSING_SCOPE", "missingScope": "operator.write",
                                    "requiredScopes": ["operator.write"]}
        with pytest.raises(GatewayRequestError) as caught:
            await client.request("chat.send", {"sessionKey": "main", "message": "x",
                                               "idempotencyKey": "k2"})
        assert caught.value.code == "FORBIDDEN"
        assert rig.host.turns == []
        assert (await client.request("sessions.list", {}))["sessions"] == []


async def test_a_writer_cannot_reset_or_delete_sessions(rig: Rig) -> None:
    client = await rig.client(scopes=["operator.write"])
    async with client:
        for method in ("sessions.reset", "sessions.delete"):
            with pytest.raises(GatewayRequestError) as caught:
                await client.request(method, {"key": "agent:main:work"})
            assert caught.value.code == "FORBIDDEN"
            assert caught.value.details["missingScope"] == "operator.admin"
        with pytest.raises(GatewayRequestError) as caught:
            await client.agent("/new", idempotency_key="k-reset", timeout=5)
        assert caught.value.details["missingScope"] == "operator.admin"


async def test_approval_methods_need_the_approvals_scope(rig: Rig) -> None:
    client = await rig.client(scopes=["operator.write"])
    async with client:
        with pytest.raises(GatewayRequestError) as caught:
            await client.request("plugin.approval.list", {})
        assert caught.value.details["missingScope"] == "operator.approvals"
    approver = await rig.client(scopes=["operator.approvals"])
    async with approver:
        assert await approver.request("plugin.approval.list", {}) == []


async def test_unknown_methods_get_the_original_error_shapes(rig: Rig) -> None:
    admin = await rig.client(scopes=["operator.admin"])
    async with admin:
        with pytest.raises(GatewayRequestError) as caught:
            await admin.request("nope.method", {})
        assert caught.value.error == {"code": "INVALID_REQUEST",
                                      "message": "unknown method: nope.method"}
    reader = await rig.client(scopes=["operator.read"])
    async with reader:
        with pytest.raises(GatewayRequestError) as caught:
            await reader.request("nope.method", {})
        assert caught.value.code == "FORBIDDEN"
        assert caught.value.details["missingScope"] == "operator.admin"


async def test_health_needs_no_scope(rig: Rig) -> None:
    client = await rig.client(scopes=[])
    async with client:
        health = await client.request("health")
        assert health["ok"] is True and health["defaultAgentId"] == "main"
        with pytest.raises(GatewayRequestError):
            await client.request("status")


async def test_unknown_scopes_asked_at_connect_are_not_granted(rig: Rig) -> None:
    client = await rig.client(scopes=["operator.read", "operator.superuser", "admin"])
    async with client:
        assert client.hello["auth"]["scopes"] == ["operator.read"]
