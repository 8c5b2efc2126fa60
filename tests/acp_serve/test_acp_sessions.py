"""`clawharness acp` as an ACP client sees it: initialize, session/new, session/load
(replaying the host transcript), session/list, modes, resume and close, through the ACP
library's client side over a socket, on a real host and a scripted model."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from acp import RequestError
from acp.schema import TextContentBlock

from clawharness.acp_serve import AcpServeOptions

OFF = {"sandbox": {"mode": "off"}}


def text(value: str) -> list[TextContentBlock]:
    return [TextContentBlock(type="text", text=value)]


async def test_initialize_says_what_the_agent_serves(served: Any) -> None:
    s = await served({"responses": []})
    init = await s.initialize()
    assert init.protocol_version == 1
    caps = init.agent_capabilities
    assert caps.load_session is True
    assert caps.session_capabilities.list is not None
    # resume and close are unstable in the protocol library: off unless asked for
    assert caps.session_capabilities.resume is None
    assert caps.session_capabilities.close is None
    assert caps.prompt_capabilities.embedded_context is True
    assert caps.prompt_capabilities.image is False
    assert init.auth_methods == []
    assert init.agent_info is not None and init.agent_info.name == "clawharness"
    with pytest.raises(RequestError) as refused:
        await s.conn.authenticate(method_id="api-key")
    assert "offers none" in str(refused.value)


async def test_unstable_serves_resume_and_close(served: Any) -> None:
    s = await served({"responses": [{"text": "one"}]}, options=AcpServeOptions(unstable=True))
    init = await s.initialize()
    assert init.agent_capabilities.session_capabilities.resume is not None
    assert init.agent_capabilities.session_capabilities.close is not None
    new = await s.conn.new_session(cwd=str(s.project), mcp_servers=[])
    await s.conn.prompt(session_id=new.session_id, prompt=text("hi"))
    before = len(s.client.updates)
    resumed = await s.conn.resume_session(session_id=new.session_id, cwd=str(s.project))
    assert resumed.modes is not None and resumed.modes.current_mode_id == "default"
    assert len(s.client.updates) == before  # resume replays nothing
    await s.conn.close_session(session_id=new.session_id)
    with pytest.raises(RequestError) as gone:
        await s.conn.prompt(session_id=new.session_id, prompt=text("again"))
    assert gone.value.code == -32002


async def test_a_new_session_is_a_host_session_keyed_for_its_agent(served: Any) -> None:
    s = await served({"responses": [{"text": "hello from main"}]},
                     agents={"defaults": {"model": "scripted/m1"},
                             "entries": {"main": {}, "coder": {}}})
    await s.initialize()
    new = await s.conn.new_session(cwd=str(s.project), mcp_servers=[])
    assert re.fullmatch(r"agent:main:acp-[0-9a-f-]{36}", new.session_id)
    assert new.modes is not None
    assert [m.id for m in new.modes.available_modes] == ["default", "ask", "read-only"]
    record = await s.host.get_session(new.session_id)
    assert record.meta.extra["acp"] == {"cwd": str(s.project), "mode": "default"}
    # a client picks another configured agent in _meta
    coder = await s.conn.new_session(cwd=str(s.project), mcp_servers=[], agentId="coder")
    assert coder.session_id.startswith("agent:coder:acp-")
    with pytest.raises(RequestError) as ghost:
        await s.conn.new_session(cwd=str(s.project), mcp_servers=[], agentId="ghost")
    assert ghost.value.code == -32602 and "unknown agent id 'ghost'" in str(ghost.value)


@pytest.mark.parametrize(("cwd", "why"), [("relative/dir", "absolute path"),
                                          ("/no/such/dir/here", "not an existing directory")])
async def test_a_session_needs_an_existing_absolute_cwd(served: Any, cwd: str,
                                                        why: str) -> None:
    s = await served({"responses": []})
    await s.initialize()
    with pytest.raises(RequestError) as refused:
        await s.conn.new_session(cwd=cwd, mcp_servers=[])
    assert refused.value.code == -32602 and why in str(refused.value)


async def test_client_mcp_servers_are_refused_with_where_to_configure_them(served: Any) -> None:
    from acp.schema import McpServerStdio

    s = await served({"responses": []})
    await s.initialize()
    with pytest.raises(RequestError) as refused:
        await s.conn.new_session(cwd=str(s.project), mcp_servers=[
            McpServerStdio(name="fs", command="npx", args=[], env=[])])
    assert "mcp.servers" in str(refused.value)


async def test_load_replays_the_host_transcript_as_session_updates(served: Any) -> None:
    script = {"responses": [
        {"match": "note", "tool_calls": [{"id": "call-w", "name": "write",
                                         "arguments": {"path": "n.md", "content": "milk\n"}}]},
        {"match": "Successfully wrote", "text": "Noted."},
        {"match": "thanks", "text": "Any time."},
    ]}
    s = await served(script, agents={"defaults": {"model": "scripted/m1", **OFF}})
    await s.initialize(fs=False, terminal=False)
    new = await s.conn.new_session(cwd=str(s.project), mcp_servers=[])
    await s.conn.prompt(session_id=new.session_id, prompt=text("take a note"))
    await s.conn.prompt(session_id=new.session_id, prompt=text("thanks"))
    assert (s.project / "n.md").read_text() == "milk\n"
    live = len(s.client.updates)

    loaded = await s.conn.load_session(cwd=str(s.project), session_id=new.session_id,
                                       mcp_servers=[])
    assert loaded is not None and loaded.modes is not None
    replay = [u for _, u in s.client.updates[live:]]
    shown = [(u.session_update, getattr(getattr(u, "content", None), "text", None))
             for u in replay if u.session_update.endswith("_chunk")]
    assert shown == [("user_message_chunk", "take a note"),
                     ("agent_message_chunk", "Noted."),
                     ("user_message_chunk", "thanks"),
                     ("agent_message_chunk", "Any time.")]
    call = next(u for u in replay if u.session_update == "tool_call")
    assert (call.tool_call_id, call.kind, call.raw_input) == (
        "call-w", "edit", {"path": "n.md", "content": "milk\n"})
    assert call.locations[0].path == str(s.project / "n.md")
    done = next(u for u in replay if u.session_update == "tool_call_update")
    assert (done.tool_call_id, done.status) == ("call-w", "completed")


async def test_load_opens_a_session_started_elsewhere_by_its_host_key(served: Any) -> None:
    s = await served({"responses": [{"match": "groceries", "text": "Eggs and bread."}]})
    await s.host.run_turn("groceries", "what are my groceries")  # e.g. `clawharness agent`
    await s.initialize()
    await s.conn.load_session(cwd=str(s.project), session_id="agent:main:groceries",
                              mcp_servers=[])
    assert s.client.text("user_message_chunk") == "what are my groceries"
    assert s.client.text() == "Eggs and bread."
    with pytest.raises(RequestError) as missing:
        await s.conn.load_session(cwd=str(s.project), session_id="agent:main:nope",
                                  mcp_servers=[])
    assert missing.value.code == -32002 and "no session agent:main:nope" in str(missing.value)


async def test_list_shows_host_sessions_with_cwd_title_and_pages(served: Any,
                                                                 tmp_path: Path) -> None:
    s = await served({"responses": [{"match": ".", "repeat": True, "text": "ok"}]})
    await s.initialize()
    other = tmp_path / "other"
    other.mkdir()
    first = await s.conn.new_session(cwd=str(s.project), mcp_servers=[])
    await s.conn.prompt(session_id=first.session_id, prompt=text("Fix the flaky test\nplease"))
    second = await s.conn.new_session(cwd=str(other), mcp_servers=[])
    await s.host.run_turn("terminal", "hello from a terminal")
    listed = await s.conn.list_sessions()
    by_id = {i.session_id: i for i in listed.sessions}
    assert set(by_id) == {first.session_id, second.session_id, "agent:main:terminal"}
    assert by_id[first.session_id].title == "Fix the flaky test"
    assert by_id[first.session_id].cwd == str(s.project)
    # a session ACP never opened shows its agent's workspace
    assert by_id["agent:main:terminal"].cwd == s.host.agent_workspace("main")
    assert listed.next_cursor is None
    only = await s.conn.list_sessions(cwd=str(other))
    assert [i.session_id for i in only.sessions] == [second.session_id]
    with pytest.raises(RequestError) as bad:
        await s.conn.list_sessions(cursor="not-a-cursor")
    assert bad.value.code == -32602


async def test_list_pages_with_a_cursor(served: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    from clawharness.acp_serve import agent

    monkeypatch.setattr(agent, "LIST_PAGE", 2)
    s = await served({"responses": []})
    await s.initialize()
    made = {(await s.conn.new_session(cwd=str(s.project), mcp_servers=[])).session_id
            for _ in range(3)}
    page = await s.conn.list_sessions(cwd=str(s.project))
    assert len(page.sessions) == 2 and page.next_cursor
    rest = await s.conn.list_sessions(cwd=str(s.project), cursor=page.next_cursor)
    assert len(rest.sessions) == 1 and rest.next_cursor is None
    assert {i.session_id for i in page.sessions + rest.sessions} == made
    with pytest.raises(RequestError):  # a cursor is bound to its cwd filter
        await s.conn.list_sessions(cursor=page.next_cursor)


async def test_a_mode_narrows_the_tools_and_survives_a_load(served: Any) -> None:
    script = {"responses": [
        {"match": "save", "repeat": True,
         "tool_calls": [{"name": "write", "arguments": {"path": "x.txt", "content": "x"}}]},
        {"match": "not offered|was not run", "repeat": True, "text": "I may not write."},
    ]}
    s = await served(script, agents={"defaults": {"model": "scripted/m1", **OFF}})
    await s.initialize()
    new = await s.conn.new_session(cwd=str(s.project), mcp_servers=[])
    await s.conn.set_session_mode(session_id=new.session_id, mode_id="read-only")
    assert s.client.of("current_mode_update")[-1].current_mode_id == "read-only"
    done = await s.conn.prompt(session_id=new.session_id, prompt=text("save it"))
    assert done.stop_reason == "end_turn"
    failed = s.client.of("tool_call_update")[-1]
    assert failed.status == "failed"
    assert not (s.project / "x.txt").exists() and s.client.fs_writes == []
    assert "I may not write." in s.client.text()
    record = await s.host.get_session(new.session_id)
    assert record.meta.extra["acp"]["mode"] == "read-only"
    loaded = await s.conn.load_session(cwd=str(s.project), session_id=new.session_id,
                                       mcp_servers=[])
    assert loaded is not None and loaded.modes is not None
    assert loaded.modes.current_mode_id == "read-only"
    with pytest.raises(RequestError) as unknown:
        await s.conn.set_session_mode(session_id=new.session_id, mode_id="yolo")
    assert "no session mode 'yolo'" in str(unknown.value)


async def test_a_prompt_to_a_session_not_opened_here_is_refused(served: Any) -> None:
    s = await served({"responses": []})
    await s.initialize()
    with pytest.raises(RequestError) as refused:
        await s.conn.prompt(session_id="agent:main:never-opened", prompt=text("hi"))
    assert refused.value.code == -32002


async def test_what_is_not_served_says_so(served: Any) -> None:
    s = await served({"responses": []})
    await s.initialize()
    new = await s.conn.new_session(cwd=str(s.project), mcp_servers=[])
    with pytest.raises(RequestError) as config:
        await s.conn.set_config_option(config_id="model", session_id=new.session_id,
                                       value="other")
    assert config.value.code == -32602 and "no config option 'model'" in str(config.value)
    with pytest.raises(RequestError) as resume:  # without --unstable
        await s.conn.resume_session(session_id=new.session_id, cwd=str(s.project))
    assert resume.value.code == -32601
    with pytest.raises(RequestError) as ext:
        await s.conn.ext_method("clawharness/anything", {})
    assert ext.value.code == -32601


async def test_workspace_agent_keeps_the_agents_configured_workspace(served: Any) -> None:
    script = {"responses": [
        {"match": "note", "tool_calls": [{"name": "write", "arguments": {
            "path": "n.txt", "content": "in the agent's workspace\n"}}]},
        {"match": "Successfully wrote", "text": "done"},
    ]}
    s = await served(script, options=AcpServeOptions(workspace="agent"),
                     agents={"defaults": {"model": "scripted/m1", **OFF}})
    await s.initialize(fs=False, terminal=False)
    new = await s.conn.new_session(cwd=str(s.project), mcp_servers=[])
    await s.conn.prompt(session_id=new.session_id, prompt=text("note it"))
    written = Path(s.host.agent_workspace("main")) / "n.txt"
    assert written.read_text() == "in the agent's workspace\n"
    assert not (s.project / "n.txt").exists()


async def test_the_context_meter_follows_each_turn_and_a_load(served: Any) -> None:
    """`usage_update` after each prompt: `used` is the tokens of the turn's last model
    call (its prompt and answer, as the transcript records them) of the configured
    `contextWindow`; a load shows the meter where the conversation left it."""
    script = {"responses": [
        {"match": "look", "tool_calls": [{"id": "call-l", "name": "ls", "arguments": {}}]},
        {"match": "", "text": "Seen.", "repeat": True},
    ]}
    s = await served(script, agents={"defaults": {"model": "scripted/m1", **OFF}}, context_window=32_000)
    await s.initialize(fs=False, terminal=False)
    new = await s.conn.new_session(cwd=str(s.project), mcp_servers=[])
    await s.conn.prompt(session_id=new.session_id, prompt=text("look around"))
    await s.conn.prompt(session_id=new.session_id, prompt=text("and again"))
    meters = s.client.of("usage_update")
    assert len(meters) == 2  # one a turn, after its last model call
    entries = await s.host.history(new.session_id)
    calls = [e.content["usage"]["totalTokens"] for e in entries
             if e.role == "assistant" and isinstance(e.content, dict)]
    assert len(calls) == 3  # the tool call, its answer, the second turn's answer
    assert [(m.used, m.size) for m in meters] == [(calls[1], 32_000), (calls[2], 32_000)]
    assert calls[2] > calls[1] > 0  # the context grows: the meter reads the last call

    before = len(s.client.updates)
    await s.conn.load_session(cwd=str(s.project), session_id=new.session_id, mcp_servers=[])
    replayed = [u for _, u in s.client.updates[before:] if u.session_update == "usage_update"]
    assert [(m.used, m.size) for m in replayed] == [(calls[2], 32_000)]


async def test_the_meter_carries_the_sessions_cost_when_its_model_is_priced(
    served: Any,
) -> None:
    """With a priced model the meter's `cost` is what the session's turns cost so far
    (USD): after each prompt, and after a load, from the store's spend rows."""
    script = {"responses": [{"match": "", "text": "Seen.", "repeat": True,
                             "usage": {"input_tokens": 2000, "output_tokens": 1000}}]}
    s = await served(script, agents={"defaults": {"model": "scripted/m1", **OFF}},
                     context_window=32_000, cost={"input": 1.0, "output": 2.0})
    await s.initialize(fs=False, terminal=False)
    new = await s.conn.new_session(cwd=str(s.project), mcp_servers=[])
    await s.conn.prompt(session_id=new.session_id, prompt=text("one"))
    await s.conn.prompt(session_id=new.session_id, prompt=text("two"))
    costs = [m.cost for m in s.client.of("usage_update")]
    # $1 / $2 per million tokens: 2,000 in and 1,000 out cost $0.004 a turn
    assert [(c.currency, round(c.amount, 9)) for c in costs if c] == [("USD", 0.004),
                                                                      ("USD", 0.008)]
    (spent,) = await s.host.usage(by="session", session_key=new.session_id)
    assert spent.turns == 2

    before = len(s.client.updates)
    await s.conn.load_session(cwd=str(s.project), session_id=new.session_id, mcp_servers=[])
    replayed = [u for _, u in s.client.updates[before:] if u.session_update == "usage_update"]
    assert [round(m.cost.amount, 9) for m in replayed if m.cost] == [0.008]


async def test_no_context_meter_without_a_context_window(served: Any) -> None:
    s = await served({"responses": [{"match": "", "text": "Hi.", "repeat": True}]},
                     agents={"defaults": {"model": "scripted/m1", **OFF}})
    await s.initialize(fs=False, terminal=False)
    new = await s.conn.new_session(cwd=str(s.project), mcp_servers=[])
    done = await s.conn.prompt(session_id=new.session_id, prompt=text("hello"))
    assert done.usage is not None and done.usage.total_tokens > 0  # usage known, window not
    assert s.client.of("usage_update") == []
