"""The `claude-cli` harness: Claude Code's CLI in two-way stream-json control mode.

    claude -p --input-format stream-json --output-format stream-json --verbose
           --permission-prompt-tool stdio --include-partial-messages --model M
           [--resume SID [--fork-session]] [--strict-mcp-config] [--mcp-config FILE|JSON]

The handshake is an `initialize` control request; a user turn is a `user` stream-json
line; permission questions arrive as `can_use_tool` control requests and are answered
`allow` (with `updatedInput`) or `deny` (with a message); an abort is an `interrupt`
control request. The turn ends at the `result` line, whose `session_id` is the binding.

The host tools Claude Code lacks (`sessions_spawn`, ...) are offered as an MCP server of
`type: "sdk"` named `clawharness` in `--mcp-config`: Claude Code sends its JSON-RPC
messages as `mcp_message` control requests and the harness answers them in-process, for
the running turn only (`clawharness.plugin_sdk.agent_harness_cli`, "host tools").
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import re
from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import Any, Final

from clawharness.harnesses.cli.claude_portable import ClaudeCliHarness
from clawharness.plugin_sdk.agent_harness_cli import (
    AssistantMessage,
    CliAgentSpec,
    CliEvent,
    ControlAnswer,
    EnvContext,
    HostMcpMessage,
    LaunchRequest,
    NativeSessionMissing,
    PermissionRequest,
    SessionStarted,
    TextBlock,
    TextDelta,
    ToolResult,
    ToolUseBlock,
    TurnFinished,
    UnknownControlRequest,
)
from clawharness.plugin_sdk.agent_harness_mcp import claude_mcp_config
from clawharness.plugin_sdk.agent_harness_session_runtime import (
    NativeSessionRecord,
    SessionBindings,
)

__all__ = [
    "CLAUDE_TOOL_NAMES",
    "ClaudeCliHarness",
    "ClaudeCommandLine",
    "ClaudeControl",
    "ClaudeEvents",
    "claude_cli_harness",
    "claude_cli_spec",
    "missing_conversation",
]

log = logging.getLogger("clawharness.harnesses.cli")

HARNESS_ID: Final = "claude-cli"
#: the host's tool server's name in Claude Code's MCP config (`mcp__clawharness__<tool>`)
HOST_TOOLS_SERVER: Final = "clawharness"

#: Claude Code tool names -> canonical host tool names (policy ids)
CLAUDE_TOOL_NAMES: Final[Mapping[str, str]] = MappingProxyType({
    "Bash": "exec",
    "BashOutput": "process",
    "KillBash": "process",
    "KillShell": "process",
    "TaskOutput": "process",
    "TaskStop": "process",
    "Read": "read",
    "NotebookRead": "read",
    "Grep": "read",
    "Glob": "ls",
    "LS": "ls",
    "Write": "write",
    "Edit": "edit",
    "MultiEdit": "edit",
    "NotebookEdit": "edit",
    "WebFetch": "web_fetch",
    "WebSearch": "web_search",
    "Task": "subagents",
    "Agent": "subagents",
})

#: a dummy key: the CLI talks to the configured base URL; the harness owns auth
DUMMY_API_KEY: Final = "sk-ant-clawharness-dummy"

#: Claude Code's own words (2.1.x) when `--resume` names a conversation its config dir
#: does not hold; the id is the resumed one, also under `--fork-session`
_NO_CONVERSATION: Final = re.compile(r"No conversation found with session ID: (\S+)")


def missing_conversation(obj: Mapping[str, Any]) -> NativeSessionMissing | None:
    """The `result` line Claude Code prints before any turn, then exits 1, when the
    conversation it was asked to resume does not exist; None for any other result.

    Observed shape: `{"type": "result", "subtype": "error_during_execution", "is_error":
    true, "num_turns": 0, "errors": ["No conversation found with session ID: <id>"]}`
    (no `result` text; stderr repeats the sentence). Only that sentence counts: a
    transient failure has other words and must not cost the binding.
    """
    if obj.get("type") != "result" or obj.get("is_error") is not True:
        return None
    if obj.get("num_turns") not in (0, None):
        return None
    errors = obj.get("errors")
    for error in errors if isinstance(errors, list) else ():
        match = _NO_CONVERSATION.fullmatch(str(error).strip())
        if match:
            return NativeSessionMissing(match.group(1), match.group(0))
    return None


class ClaudeCommandLine:
    """argv and environment of `claude -p` in control mode."""

    def argv(self, launch: LaunchRequest) -> list[str]:
        argv = [*launch.command, "-p", "--input-format", "stream-json",
                "--output-format", "stream-json", "--verbose",
                "--permission-prompt-tool", "stdio", "--include-partial-messages"]
        if launch.model_id:
            argv += ["--model", launch.model_id]
        if launch.resume_session_id:
            argv += ["--resume", launch.resume_session_id]
            if launch.fork:
                argv.append("--fork-session")
        if launch.mcp_servers:
            # the host's mcp.servers and nothing else (no user or project .mcp.json)
            config, left_out = claude_mcp_config(launch.mcp_servers)
            for note in left_out:
                log.warning("%s", note)
            argv += ["--strict-mcp-config", "--mcp-config", _mcp_config_arg(config, launch)]
        if launch.host_tools:
            # the host's own tools, served in-process over the control channel (no secret)
            argv += ["--mcp-config", json.dumps({"mcpServers": {HOST_TOOLS_SERVER: {
                "type": "sdk", "name": HOST_TOOLS_SERVER}}})]
        extra = launch.options.get("extraArgs")
        if isinstance(extra, Sequence) and not isinstance(extra, str):
            argv += [str(a) for a in extra]
        return argv

    def environment(self, ctx: EnvContext) -> dict[str, str]:
        config_dir = ctx.agent_dir / "claude-config"
        config_dir.mkdir(parents=True, exist_ok=True)
        env = {"CLAUDE_CONFIG_DIR": str(config_dir),
               "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
               "ANTHROPIC_API_KEY": ctx.params.auth.api_key or DUMMY_API_KEY}
        base_url = ctx.params.model.base_url
        if base_url:
            env["ANTHROPIC_BASE_URL"] = base_url
        return env


def _mcp_config_arg(config: Mapping[str, Any], launch: LaunchRequest) -> str:
    """The `--mcp-config` value: a file only this user can read, named by its content's
    hash (so a changed config means a new argv, and a new process), in the agent's
    directory; the JSON itself only when there is no such directory. The config holds
    the servers' resolved secrets, which must not sit in argv for any local user to see."""
    text = json.dumps(config, sort_keys=True)
    if launch.agent_dir is None:
        return text
    folder = launch.agent_dir / "mcp"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{hashlib.sha256(text.encode()).hexdigest()[:16]}.json"
    if not path.exists():
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as f:
            f.write(text)
    return str(path)


def _text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(b.get("text", "") for b in content
                       if isinstance(b, Mapping) and b.get("type") == "text")
    return "" if content is None else str(content)


class ClaudeEvents:
    """Claude Code stream-json -> normalized events (sub-agent traffic is skipped)."""

    def map(self, obj: Mapping[str, Any]) -> Sequence[CliEvent]:
        kind = obj.get("type")
        if kind == "system":
            sid = obj.get("session_id")
            if obj.get("subtype") == "init" and isinstance(sid, str):
                return [SessionStarted(sid)]
            return []
        if kind == "control_request":
            return self._control_request(obj)
        if kind == "control_response":
            response = obj.get("response")
            if not isinstance(response, Mapping):
                return []
            return [ControlAnswer(str(response.get("request_id", "")),
                                  response.get("subtype") == "success",
                                  str(response.get("error")) if response.get("error") else None)]
        if kind == "result":
            missing = missing_conversation(obj)
            return [missing if missing is not None else self._result(obj)]
        if obj.get("parent_tool_use_id"):
            return []  # a sub-agent's own stream
        if kind == "stream_event":
            event = obj.get("event")
            if isinstance(event, Mapping) and event.get("type") == "content_block_delta":
                delta = event.get("delta")
                if isinstance(delta, Mapping) and delta.get("type") == "text_delta":
                    return [TextDelta(str(delta.get("text", "")))]
            return []
        if kind == "assistant":
            return self._assistant(obj)
        if kind == "user":
            return self._tool_results(obj)
        return []

    @staticmethod
    def _control_request(obj: Mapping[str, Any]) -> list[CliEvent]:
        request = obj.get("request")
        request_id = str(obj.get("request_id", ""))
        if not isinstance(request, Mapping):
            return []
        subtype = str(request.get("subtype", ""))
        if subtype == "mcp_message":
            message = request.get("message")
            return [HostMcpMessage(request_id, str(request.get("server_name", "")),
                                   dict(message) if isinstance(message, Mapping) else {})]
        if subtype == "can_use_tool":
            raw_input = request.get("input")
            tool_use_id = request.get("tool_use_id")
            return [PermissionRequest(
                request_id, str(request.get("tool_name", "")),
                dict(raw_input) if isinstance(raw_input, Mapping) else {},
                tool_use_id if isinstance(tool_use_id, str) else None)]
        return [UnknownControlRequest(request_id, subtype)]

    @staticmethod
    def _assistant(obj: Mapping[str, Any]) -> list[CliEvent]:
        message = obj.get("message")
        if not isinstance(message, Mapping):
            return []
        blocks: list[TextBlock | ToolUseBlock] = []
        content = message.get("content")
        for block in content if isinstance(content, list) else []:
            if not isinstance(block, Mapping):
                continue
            if block.get("type") == "text":
                blocks.append(TextBlock(str(block.get("text", ""))))
            elif block.get("type") == "tool_use":
                raw = block.get("input")
                blocks.append(ToolUseBlock(str(block.get("id", "")), str(block.get("name", "")),
                                           dict(raw) if isinstance(raw, Mapping) else {}))
        error = None
        if message.get("model") == "<synthetic>" or obj.get("error"):
            error = "".join(b.text for b in blocks if isinstance(b, TextBlock)) or str(
                obj.get("error") or "the model request failed")
        message_id = message.get("id")
        usage = message.get("usage")
        return [AssistantMessage(tuple(blocks), message_id if isinstance(message_id, str) else None,
                                 error, usage if isinstance(usage, Mapping) else None)]

    @staticmethod
    def _tool_results(obj: Mapping[str, Any]) -> list[CliEvent]:
        message = obj.get("message")
        if not isinstance(message, Mapping):
            return []
        content = message.get("content")
        events: list[CliEvent] = []
        for block in content if isinstance(content, list) else []:
            if isinstance(block, Mapping) and block.get("type") == "tool_result":
                events.append(ToolResult(str(block.get("tool_use_id", "")),
                                         _text_of(block.get("content")),
                                         bool(block.get("is_error")),
                                         obj.get("tool_use_result")))
        return events

    @staticmethod
    def _result(obj: Mapping[str, Any]) -> TurnFinished:
        sid = obj.get("session_id")
        subtype = str(obj.get("subtype", ""))
        is_error = bool(obj.get("is_error")) or subtype != "success"
        text = obj.get("result")
        error = None
        if is_error:
            errors = obj.get("errors")
            if isinstance(text, str) and text:
                error = text
            elif isinstance(errors, list) and errors:
                error = "; ".join(str(e) for e in errors)
            else:
                error = f"claude turn ended with {subtype or 'an error'}"
        usage = obj.get("usage")
        # the process's total since it started, by Claude Code's own prices
        cost = obj.get("total_cost_usd")
        return TurnFinished(sid if isinstance(sid, str) else None, is_error,
                            text if isinstance(text, str) else None, error,
                            usage if isinstance(usage, Mapping) else None,
                            interrupted=subtype == "error_during_execution",
                            cost_usd=float(cost) if isinstance(cost, int | float)
                            and not isinstance(cost, bool) else None)


class ClaudeControl:
    """Claude Code's control protocol on stdin."""

    def handshake(self) -> Sequence[Mapping[str, Any]]:
        return [{"type": "control_request", "request_id": "init_1",
                 "request": {"subtype": "initialize", "hooks": None}}]

    def user_turn(self, prompt: str, images: Sequence[Mapping[str, Any]], *,
                  context: str | None = None) -> Mapping[str, Any]:
        content: list[dict[str, Any]] = [{"type": "text", "text": context}] if context else []
        content.append({"type": "text", "text": prompt})
        for image in images:
            content.append({"type": "image", "source": {
                "type": "base64", "media_type": str(image.get("mimeType", "image/png")),
                "data": str(image.get("data", ""))}})
        return {"type": "user", "session_id": "", "parent_tool_use_id": None,
                "message": {"role": "user", "content": content}}

    def permission_reply(self, request: PermissionRequest, *, allow: bool,
                         updated_input: Mapping[str, Any] | None,
                         message: str | None) -> Mapping[str, Any]:
        answer: dict[str, Any] = (
            {"behavior": "allow", "updatedInput": dict(updated_input or request.input)}
            if allow else {"behavior": "deny", "message": message or "denied"})
        return {"type": "control_response", "response": {
            "subtype": "success", "request_id": request.request_id, "response": answer}}

    def error_reply(self, request_id: str, message: str) -> Mapping[str, Any]:
        return {"type": "control_response", "response": {
            "subtype": "error", "request_id": request_id, "error": message}}

    def interrupt(self, request_id: str) -> Mapping[str, Any] | None:
        return {"type": "control_request", "request_id": request_id,
                "request": {"subtype": "interrupt"}}


class ClaudeHostTools:
    """The host's tools as Claude Code's SDK MCP server: an `mcp_message` is answered by
    a `control_response` whose `response` holds the server's `mcp_response`."""

    server: Final = HOST_TOOLS_SERVER

    def reply(self, request_id: str, response: Mapping[str, Any] | None) -> Mapping[str, Any]:
        # a notification is acknowledged with an empty result, as Claude's SDKs do
        return {"type": "control_response", "response": {
            "subtype": "success", "request_id": request_id,
            "response": {"mcp_response": dict(response) if response is not None
                         else {"jsonrpc": "2.0", "result": {}}}}}


def claude_cli_spec() -> CliAgentSpec:
    """The description of Claude Code's CLI."""
    return CliAgentSpec(
        id=HARNESS_ID, label="Claude Code CLI", default_command=("claude",),
        command_line=ClaudeCommandLine(), events=ClaudeEvents(), control=ClaudeControl(),
        providers=("anthropic",), tool_names=CLAUDE_TOOL_NAMES, auth_bootstrap="harness",
        api="claude-cli", host_tools=ClaudeHostTools())


def claude_cli_harness(*, state_dir: Any = None, store: Any = None,
                       config: Mapping[str, Any] | None = None,
                       bindings: SessionBindings[NativeSessionRecord] | None = None,
                       ) -> ClaudeCliHarness:
    """A `claude-cli` harness (plugin `config`; `bindings`, else its own under
    `state_dir` / in `store`), whose sessions can be adopted and handed off."""
    return ClaudeCliHarness(claude_cli_spec(), state_dir=state_dir, config=config, store=store,
                            bindings=bindings)
