"""Pure decisions for an OpenAI-compatible request, as the original makes them.

- The agent: the `x-openclaw-agent-id` header, else the model (`openclaw`,
  `openclaw/default`, `openclaw/<agentId>`, `openclaw:<agentId>`, `agent:<agentId>`), else
  the default agent. An agent the config does not have, or a model that names none of
  these, is refused by name (the original falls back silently; a caller who asked for
  `gpt-4o` should learn that this server does not serve it).
- The session: the `x-openclaw-session-key` header names one; else the request's `user`
  names a stable one (`agent:<id>:openai-user:<user>`); else every request is its own
  session (`agent:<id>:openai:<uuid>`), i.e. stateless.
- The prompt: the last user (or tool) message is the one answered; earlier messages are
  given as context before it, and system/developer messages as instructions first.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from clawharness.errors import InvalidSessionKeyError
from clawharness.gateway.openai_http.errors import OpenAiHttpError
from clawharness.sessions.keys import parse_session_key

__all__ = [
    "DEFAULT_MODEL_ID",
    "MODEL_ID",
    "Prompt",
    "agent_from_model",
    "chat_prompt",
    "named_session_key",
    "refuse_unsupported",
    "resolve_agent",
    "resolve_session_key",
    "served_model_ids",
    "text_of_content",
]

MODEL_ID: Final = "openclaw"
DEFAULT_MODEL_ID: Final = "openclaw/default"
AGENT_HEADER: Final = "x-openclaw-agent-id"
SESSION_HEADER: Final = "x-openclaw-session-key"

_AGENT_ID: Final = re.compile(r"^[a-z0-9][a-z0-9_-]{0,63}$", re.IGNORECASE)
_MODEL_AGENT: Final = re.compile(r"^(?:openclaw[:/]|agent:)(?P<agent>[^/:\s]+)$", re.IGNORECASE)
_USER: Final = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._@+=-]{0,127}$")

CONTEXT_HEADING: Final = "[Chat messages since your last reply - for context]"
CURRENT_HEADING: Final = "[Current message - respond to this]"
SYSTEM_HEADING: Final = "[Instructions from the caller]"


@dataclass(frozen=True, slots=True)
class Prompt:
    """The message a turn answers, built from an OpenAI message list."""

    message: str
    history_entries: int = 0


def served_model_ids(agent_ids: Sequence[str], default_agent: str) -> list[str]:
    """`GET /v1/models`: `openclaw`, `openclaw/default`, then `openclaw/<agentId>` each."""
    ids = [MODEL_ID, DEFAULT_MODEL_ID, f"{MODEL_ID}/{default_agent}"]
    ids += [f"{MODEL_ID}/{a}" for a in agent_ids if f"{MODEL_ID}/{a}" not in ids]
    return ids


def agent_from_model(model: str) -> str | None:
    """The agent a model id names (None: the default agent); OpenAiHttpError if none."""
    text = model.strip()
    if text.lower() in (MODEL_ID, DEFAULT_MODEL_ID):
        return None
    match = _MODEL_AGENT.match(text)
    if match is None or not _AGENT_ID.match(match["agent"]):
        raise OpenAiHttpError(
            404, f"The model `{model}` does not exist here: this gateway serves agents as "
            f"models, `{MODEL_ID}` (the default agent) or `{MODEL_ID}/<agentId>` "
            "(see GET /v1/models)", param="model", code="model_not_found")
    return match["agent"].lower()


def resolve_agent(model: str | None, header: str | None, known: Iterable[str],
                  default_agent: str) -> str:
    """The agent a request runs on; OpenAiHttpError naming an unknown one."""
    known_ids = list(known)
    chosen: str | None
    source: str
    if header is not None and header.strip():
        chosen, source = header.strip().lower(), f"header {AGENT_HEADER}"
        if not _AGENT_ID.match(chosen):
            raise OpenAiHttpError(400, f"{AGENT_HEADER} {header!r} is not an agent id "
                                  "(lowercase letters, digits, '-' or '_')",
                                  code="invalid_agent")
    else:
        chosen, source = agent_from_model(model or MODEL_ID), "model"
        if chosen == "default":
            chosen = None
    if chosen is None:
        return default_agent
    if chosen not in known_ids:
        raise OpenAiHttpError(
            404, f"unknown agent {chosen!r} (from the {source}): this gateway's agents are "
            f"{', '.join(known_ids)}", param="model" if source == "model" else None,
            code="model_not_found" if source == "model" else "agent_not_found")
    return chosen


def named_session_key(agent_id: str, *, header: str | None, user: Any,
                      prefix: str) -> str | None:
    """The session a request names (header, else `user`), or None: it names none."""
    if header is not None and header.strip():
        try:
            return str(parse_session_key(header.strip()))
        except InvalidSessionKeyError as exc:
            raise OpenAiHttpError(400, f"{SESSION_HEADER}: {exc}",
                                  code="invalid_session_key") from None
    if user is not None:
        if not isinstance(user, str):
            raise OpenAiHttpError(400, "`user` must be a string", param="user")
        if user.strip():
            if not _USER.match(user.strip()):
                raise OpenAiHttpError(
                    400, "`user` must start with a letter or digit and hold only letters, "
                    "digits and . _ @ + = - (at most 128) to name a session", param="user")
            return f"agent:{agent_id}:{prefix}-user:{user.strip()}"
    return None


def resolve_session_key(agent_id: str, *, header: str | None, user: Any, prefix: str,
                        new_id: str) -> str:
    """The session a request's turn runs on (see the module docstring)."""
    named = named_session_key(agent_id, header=header, user=user, prefix=prefix)
    return named if named is not None else f"agent:{agent_id}:{prefix}:{new_id}"


def text_of_content(content: Any) -> str:
    """The text of a message's `content`: a string, or the text parts of a part list."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        texts: list[str] = []
        for part in content:
            if not isinstance(part, Mapping):
                continue
            text = part.get("text")
            if part.get("type") in ("text", "input_text", "output_text") and isinstance(text, str):
                texts.append(text)
            elif isinstance(part.get("input_text"), str):
                texts.append(part["input_text"])
        return "\n".join(t for t in texts if t)
    return ""


def _sender(role: str, name: Any) -> str:
    if role == "assistant":
        return "Assistant"
    if role == "user":
        return "User"
    return f"Tool:{name.strip()}" if isinstance(name, str) and name.strip() else "Tool"


def chat_prompt(messages: Any, *, field: str = "messages") -> Prompt:
    """The prompt for `messages` (an OpenAI message list); OpenAiHttpError when unusable."""
    if not isinstance(messages, list) or not messages:
        raise OpenAiHttpError(400, f"`{field}` must be a non-empty array of messages",
                              param=field)
    system: list[str] = []
    entries: list[tuple[str, str]] = []
    for index, message in enumerate(messages):
        if not isinstance(message, Mapping):
            raise OpenAiHttpError(400, f"`{field}[{index}]` must be an object",
                                  param=f"{field}[{index}]")
        role = message.get("role")
        if not isinstance(role, str):
            raise OpenAiHttpError(400, f"`{field}[{index}].role` must be a string",
                                  param=f"{field}[{index}].role")
        role = "tool" if role.strip() == "function" else role.strip()
        text = text_of_content(message.get("content")).strip()
        if role in ("system", "developer"):
            if text:
                system.append(text)
            continue
        if role not in ("user", "assistant", "tool"):
            raise OpenAiHttpError(400, f"`{field}[{index}].role` {role!r} is not one of "
                                  "system, developer, user, assistant, tool",
                                  param=f"{field}[{index}].role")
        if text:
            entries.append((role, f"{_sender(role, message.get('name'))}: {text}"
                            if role != "user" else text))
    active = next((i for i in range(len(entries) - 1, -1, -1)
                   if entries[i][0] in ("user", "tool")), None)
    if active is None:
        raise OpenAiHttpError(400, f"Missing user message in `{field}`.", param=field)
    history = [line if role != "user" else f"User: {line}" for role, line in entries[:active]]
    current = entries[active][1]
    parts: list[str] = []
    if system:
        parts += [SYSTEM_HEADING, "\n\n".join(system), ""]
    if history:
        parts += [CONTEXT_HEADING, *history, "", CURRENT_HEADING]
    parts.append(current)
    return Prompt("\n".join(parts), history_entries=len(history))


def refuse_unsupported(body: Mapping[str, Any], rules: Mapping[str, str]) -> None:
    """Refuse, by name, the first parameter in `rules` the request sets to a value that
    would change the answer's shape (the value of each rule says why)."""
    for name, why in rules.items():
        if name not in body or body[name] is None:
            continue
        value = body[name]
        if name == "n" and value == 1:
            continue
        if name in ("tools", "functions", "include") and value == []:
            continue
        if name == "tool_choice" and value in ("none", "auto"):
            continue
        if name in ("logprobs", "parallel_tool_calls", "store") and value is False:
            continue
        if name == "response_format" and isinstance(value, Mapping) and value.get(
                "type") == "text":
            continue
        if name == "modalities" and value == ["text"]:
            continue
        raise OpenAiHttpError(400, f"`{name}` is not supported by this gateway: {why}",
                              param=name, code="unsupported_parameter")
