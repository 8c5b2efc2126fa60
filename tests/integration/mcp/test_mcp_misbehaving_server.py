"""A server that floods, sends malformed JSON-RPC, changes its tools or sends bad schemas:
each call fails or succeeds on its own, the connection is restarted, nothing is lost."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from clawharness.config.schema import McpConfig
from clawharness.errors import McpCallError
from clawharness.harness.tool_spec import ToolCallContext
from clawharness.mcp.manager import McpManager

pytestmark = pytest.mark.integration

SERVER = str(Path(__file__).with_name("misbehaving_server.py"))


class _AllowAll:
    def check(self, tool_name: str) -> str | None:
        return None


def _manager(**extra: object) -> McpManager:
    entry = {"command": sys.executable, "args": [SERVER], "maxResultChars": 1000, **extra}
    return McpManager(McpConfig.model_validate({"servers": {"bad": entry}}), {})


async def _call(manager: McpManager, name: str) -> dict[str, object]:
    specs = {s.name: s for s in await manager.tool_specs(_AllowAll())}
    import asyncio
    ctx = ToolCallContext("c", ".", asyncio.Event(), "agent:main:x", "r")
    return await specs[name].execute({}, ctx)


def _text(result: dict[str, object]) -> str:
    content = result["content"]
    assert isinstance(content, list)
    return "".join(b.get("text", "") for b in content)


async def test_bad_schema_is_left_out_with_a_warning_and_the_rest_offered() -> None:
    manager = _manager()
    try:
        names = [s.name for s in await manager.tool_specs(_AllowAll())]
        assert "bad__pid" in names and not any("schema" in n for n in names)
        assert any("'bad schema' left out" in w for w in manager.warnings)
    finally:
        await manager.close()


async def test_a_result_over_max_result_chars_is_cut_with_a_note() -> None:
    manager = _manager()
    try:
        text = _text(await _call(manager, "bad__big"))
        assert text.startswith("y" * 1000) and "y" * 1001 not in text
        assert "1000 of 5000 characters" in text
    finally:
        await manager.close()


async def test_malformed_json_rpc_closes_and_restarts_the_connection() -> None:
    manager = _manager()
    try:
        first = _text(await _call(manager, "bad__pid"))
        try:
            await _call(manager, "bad__garbage")
        except McpCallError:
            pass  # the answer may be lost with the connection: that call alone fails
        second = _text(await _call(manager, "bad__pid"))
        assert second != first
        assert manager.connection("bad").starts == 2
    finally:
        await manager.close()


async def test_a_notification_flood_closes_and_restarts_the_connection() -> None:
    manager = _manager()
    try:
        first = _text(await _call(manager, "bad__pid"))
        try:
            await _call(manager, "bad__flood")
        except McpCallError:
            pass
        second = _text(await _call(manager, "bad__pid"))
        assert second != first
    finally:
        await manager.close()


async def test_tools_list_changed_refreshes_the_catalog() -> None:
    manager = _manager()
    try:
        assert "bad__extra" not in {s.name for s in await manager.tool_specs(_AllowAll())}
        await _call(manager, "bad__grow")
        assert _text(await _call(manager, "bad__extra")) == "extra here"
    finally:
        await manager.close()


async def test_aborting_a_turn_cancels_its_in_flight_mcp_call(tmp_path: Path) -> None:
    import asyncio

    from mcp_rig import scripted_config

    from clawharness.attempt.turn import TurnOptions
    from clawharness.host import Host

    log = tmp_path / "server.log"
    script = {"responses": [{"match": "sleep", "tool_calls": [{"name": "bad__sleep",
                                                               "arguments": {}}]}],
              "exhausted": "text"}
    extra = {"mcp": {"servers": {"bad": {"command": sys.executable, "args": [SERVER],
                                         "env": {"MCP_TEST_LOG": str(log)}}}}}

    async def logged(prefix: str) -> str:
        async with asyncio.timeout(20):
            while True:
                lines = log.read_text().splitlines() if log.exists() else []
                found = [line for line in lines if line.startswith(prefix)]
                if found:
                    return found[0].split(" ", 1)[1]
                await asyncio.sleep(0.05)  # polling a file another process writes

    with scripted_config(tmp_path, script, extra) as config:
        async with Host.from_config(config) as host:
            abort = asyncio.Event()
            turn = asyncio.create_task(host.run_turn("c", "sleep", TurnOptions(abort=abort)))
            started = await logged("started")
            abort.set()
            result = await asyncio.wait_for(turn, 20)
            assert result.terminal == "aborted", result
            assert await logged("cancelled") == started


async def test_a_server_that_keeps_dying_backs_off_and_then_fails_fast() -> None:
    from clawharness.errors import McpConnectError

    config = McpConfig.model_validate({"servers": {"dies": {
        "command": sys.executable, "args": ["-c", "raise SystemExit(3)"]}}})
    manager = McpManager(config, {})
    conn = manager.connection("dies")
    try:
        messages = []
        for _ in range(4):  # waits 0, 0.2, 0.4, 0.8 s before the starts
            with pytest.raises(McpConnectError) as caught:
                await conn.session()
            messages.append(str(caught.value))
        assert all("'dies' could not be started" in m for m in messages)
        with pytest.raises(McpConnectError, match=r"failed 4 times in a row .* next start is in"):
            await conn.session()  # 1.6 s to wait: the call fails at once
        assert conn.starts == 0
        # the catalog leaves the server out, with the reason, and never fails the turn
        assert await manager.tool_specs(_AllowAll()) == ()
        assert any("'dies' is unavailable" in w for w in manager.warnings)
    finally:
        await manager.close()


async def test_a_server_that_hangs_at_start_times_out_and_the_turn_goes_on() -> None:
    from clawharness.errors import McpConnectError

    manager = _manager(env={"MCP_TEST_HANG_INIT": "1"}, connectionTimeoutMs=500)
    try:
        with pytest.raises(McpConnectError, match=r"'bad' did not start within 0\.5s"):
            await manager.connection("bad").session()
        assert await manager.tool_specs(_AllowAll()) == ()  # left out, not raised
    finally:
        await manager.close()


@pytest.mark.parametrize(("paging", "most", "warning"), [
    ("huge-page", 500, "a page of its tool list held more than 500 tools"),
    ("endless", 1_000, "lists more than 1,000 tools"),
    ("empty-endless", 0, "in more than 50 pages"),
    ("repeat", 7, "repeated a cursor"),
])
async def test_a_tool_list_is_capped_per_page_and_per_server(paging: str, most: int,
                                                             warning: str) -> None:
    # issue 31: a server could page forever or list millions of tools
    import asyncio

    from clawharness.mcp.connection import MAX_TOOL_PAGES, MAX_TOOLS, MAX_TOOLS_PER_PAGE

    assert (MAX_TOOLS_PER_PAGE, MAX_TOOLS, MAX_TOOL_PAGES) == (500, 1_000, 50)
    manager = _manager(env={"MCP_TEST_PAGING": paging})
    try:
        async with asyncio.timeout(60):
            listed = await manager.connection("bad").tools()
        assert len(listed) <= most and (most == 0 or len(listed) >= min(most, 7))
        assert any(warning in w for w in manager.connection("bad").listing_warnings), (
            manager.connection("bad").listing_warnings)
    finally:
        await manager.close()
