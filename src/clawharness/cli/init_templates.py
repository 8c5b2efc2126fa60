"""What `clawharness init` writes: a commented JSON5 starter config and an offline script.

Pure: a `StarterPlan` (checked by `plan_starter`) in, file text out. The config never
holds a secret: a provider's key is a `${ENV_VAR}` reference, read when a turn runs.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Final, Literal
from urllib.parse import urlsplit

from clawharness.errors import ClawHarnessError

__all__ = [
    "PROVIDER_KINDS",
    "InitOptionError",
    "ProviderDefaults",
    "StarterPlan",
    "plan_starter",
    "render_config",
    "render_script",
]

ProviderKind = Literal["openai", "anthropic", "ollama", "openai-compatible", "scripted"]
ApiName = Literal["openai-responses", "openai-completions", "anthropic-messages"]

#: the kinds `--provider` takes (`scripted` is `--offline`)
PROVIDER_KINDS: Final[tuple[str, ...]] = ("openai", "anthropic", "ollama", "openai-compatible")
_APIS: Final[tuple[str, ...]] = ("openai-completions", "openai-responses", "anthropic-messages")
_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*\Z")
_PROVIDER_ID = re.compile(r"^[a-z0-9][a-z0-9_-]*\Z")
_IDENTIFIER = re.compile(r"^[A-Za-z_$][A-Za-z0-9_$]*\Z")
_LOOPBACK_HOSTS: Final = frozenset({"localhost", "127.0.0.1", "::1"})


class InitOptionError(ClawHarnessError):
    """An `init` option that cannot make a working config (nothing was written)."""

    code = "init_option_invalid"


@dataclass(frozen=True, slots=True)
class ProviderDefaults:
    """What a provider kind uses unless told otherwise."""

    provider_id: str
    model_id: str | None
    api: ApiName | None
    base_url: str | None
    api_key_env: str | None
    title: str


DEFAULTS: Final[dict[str, ProviderDefaults]] = {
    "openai": ProviderDefaults("openai", "gpt-5.5", None, None, "OPENAI_API_KEY",
                               "OpenAI (Responses API)"),
    "anthropic": ProviderDefaults("anthropic", "claude-sonnet-4-5", None, None,
                                  "ANTHROPIC_API_KEY", "Anthropic (Messages API)"),
    "ollama": ProviderDefaults("ollama", "llama3.2", "openai-completions",
                               "http://127.0.0.1:11434/v1", None,
                               "Ollama (its OpenAI-compatible API)"),
    "openai-compatible": ProviderDefaults("local", None, "openai-completions", None, None,
                                          "an OpenAI-compatible server"),
    "scripted": ProviderDefaults("scripted", "offline", None, None, None,
                                 "a scripted model, offline"),
}


@dataclass(frozen=True, slots=True)
class StarterPlan:
    """Everything the starter config says; build it with `plan_starter`."""

    kind: ProviderKind
    provider_id: str
    model_id: str
    api: ApiName | None = None
    base_url: str | None = None
    api_key_env: str | None = None
    #: the offline model's script (scripted only), absolute
    script_path: Path | None = None
    #: remarks for the person (a plaintext URL to another host, ...)
    warnings: tuple[str, ...] = ()

    @property
    def model_ref(self) -> str:
        return f"{self.provider_id}/{self.model_id}"


def _env_name_problem(name: str) -> str | None:
    if _ENV_NAME.match(name) is None:
        return ("--api-key-env takes the NAME of an environment variable (letters, digits, _; "
                "e.g. OPENAI_API_KEY), not the key itself")
    if len(name) >= 20 and "_" not in name and not name.isupper():
        # shaped like a key, not like a variable name: never write it into the file
        return ("--api-key-env looks like an API key rather than a variable name; pass the "
                "name of the variable that holds the key (e.g. OPENAI_API_KEY)")
    return None


def _base_url_problems(url: str, api: str | None) -> tuple[list[str], list[str]]:
    """(problems, warnings) for a provider base URL."""
    try:
        parts = urlsplit(url)
        host = parts.hostname
    except ValueError:
        parts, host = None, None
    if parts is None or parts.scheme not in ("http", "https") or not host:
        return [f"--base-url {url!r} is not an http(s) URL with a host "
                "(e.g. http://127.0.0.1:8000/v1)"], []
    warnings: list[str] = []
    if parts.scheme == "http" and host.lower() not in _LOOPBACK_HOSTS:
        if host.lower() in ("api.openai.com", "api.anthropic.com"):
            return [f"--base-url {url!r}: the official endpoint over plaintext http:// is "
                    "rejected; use https://"], []
        warnings.append(f"{url} is plaintext http:// to another host: the API key and "
                        "every prompt cross the network unencrypted; prefer https://")
    if api != "anthropic-messages" and not parts.path.rstrip("/").endswith("/v1"):
        warnings.append(f"{url} does not end in /v1, where most OpenAI-compatible servers "
                        "serve their API; check the server's docs")
    return [], warnings


def plan_starter(kind: str, *, model_id: str | None = None, base_url: str | None = None,
                 api: str | None = None, api_key_env: str | None = None,
                 no_api_key: bool = False, provider_id: str | None = None,
                 script_path: Path | None = None) -> StarterPlan:
    """A checked plan for `kind`; `InitOptionError` lists every option that is wrong."""
    if kind not in DEFAULTS:
        raise InitOptionError(
            f"--provider {kind!r} is not one of {', '.join(PROVIDER_KINDS)} "
            "(or pass --offline for the scripted model); nothing was written")
    defaults = DEFAULTS[kind]
    problems: list[str] = []
    compatible = kind == "openai-compatible"
    if provider_id is not None and not compatible:
        problems.append(f"--provider-id applies to openai-compatible only, not {kind}")
    pid = (provider_id or defaults.provider_id).strip()
    if _PROVIDER_ID.match(pid) is None:
        problems.append(f"--provider-id {pid!r} must be lower case letters, digits, - or _ "
                        "(it is the part before the / in model refs)")
    chosen_api = defaults.api
    if api is not None:
        if not compatible:
            problems.append(f"--api applies to openai-compatible only, not {kind}")
        elif api not in _APIS:
            problems.append(f"--api {api!r} is not one of {', '.join(_APIS)}")
        else:
            chosen_api = api  # type: ignore[assignment]
    url = base_url.strip() if base_url is not None else defaults.base_url
    warnings: list[str] = []
    if kind in ("openai", "anthropic", "scripted") and base_url is not None:
        problems.append(f"--base-url does not apply to {kind}; for another server use "
                        "--provider openai-compatible --base-url URL")
        url = None
    elif compatible and not url:
        problems.append("openai-compatible needs --base-url (e.g. http://127.0.0.1:8000/v1)")
    if url:
        found, warnings = _base_url_problems(url, chosen_api)
        problems += found
    model = (model_id if model_id is not None else defaults.model_id or "").strip()
    if not model:
        problems.append(f"{kind} needs a model id: pass --model (the id the server uses, "
                        "e.g. --model qwen3)")
    elif any(ch.isspace() for ch in model):
        problems.append(f"--model {model!r} must not contain spaces")
    env: str | None = None
    if kind != "scripted" and not no_api_key:
        raw = api_key_env.strip() if api_key_env is not None else (
            defaults.api_key_env or (f"{pid.upper().replace('-', '_')}_API_KEY"
                                     if compatible else None))
        if raw:
            problem = _env_name_problem(raw)
            if problem is not None:
                problems.append(problem)
            env = raw
    if kind == "scripted":
        if script_path is None:
            problems.append("the offline config needs a script path (--script)")
        else:
            script_path = script_path.expanduser().resolve()
    if problems:
        raise InitOptionError("; ".join(problems) + "; nothing was written")
    return StarterPlan(kind, pid, model, chosen_api, url, env,  # type: ignore[arg-type]
                       script_path, tuple(warnings))


# --- rendering -------------------------------------------------------------------------


def _s(value: str) -> str:
    """A JSON5 string literal."""
    return json.dumps(value, ensure_ascii=False)


def _key(name: str) -> str:
    return name if _IDENTIFIER.match(name) else _s(name)


def _provider_lines(plan: StarterPlan) -> list[str]:
    title = DEFAULTS[plan.kind].title
    lines: list[str] = []
    if plan.kind == "scripted":
        script = str(plan.script_path)
        lines += [
            f"      // {title}: it plays the script below in process (no key, no network).",
            "      // Edit the script to teach it more answers; the format is in",
            "      // docs/scripted-model.md. To drive the same script over HTTP, the way a real",
            "      // provider is driven, run",
            f"      //   clawharness model-server --script {script} --port 8123",
            "      // and use this provider instead (the baseUrl needs the /v1):",
            '      //   scripted: { baseUrl: "http://127.0.0.1:8123/v1", api: "openai-responses",',
            f'      //               apiKey: "offline", models: [{{ id: {_s(plan.model_id)} }}] }},',
            "      scripted: {",
            '        api: "scripted",',
            f"        models: [{{ id: {_s(plan.model_id)}, params: {{ script: {_s(script)} }} }}],",
            "      },",
        ]
        return lines
    lines.append(f"      // {title}")
    if plan.api_key_env:
        lines += [
            "      // The key is read from the environment when a turn runs; this file only",
            f"      // names the variable:  export {plan.api_key_env}=...",
        ]
    elif plan.kind == "ollama":
        lines.append("      // Ollama needs no key. Start it with `ollama serve` and pull the model "
                     f"(`ollama pull {plan.model_id}`).")
    else:
        lines.append("      // No API key is sent (add apiKey: \"${VAR}\" if the server wants one).")
    lines.append(f"      {_key(plan.provider_id)}: {{")
    if plan.base_url:
        lines.append(f"        baseUrl: {_s(plan.base_url)},")
    if plan.api:
        lines.append(f"        api: {_s(plan.api)},"
                     "   // openai-completions | openai-responses | anthropic-messages")
    if plan.api_key_env:
        lines.append(f"        apiKey: {_s('${' + plan.api_key_env + '}')},")
    lines += [
        f"        models: [{{ id: {_s(plan.model_id)} }}],"
        "   // more rows: { id, contextWindow, maxTokens }",
        "      },",
    ]
    return lines


def render_config(plan: StarterPlan) -> str:
    """The starter config as commented JSON5 text."""
    lines = [
        "// clawharness config, written by `clawharness init`. JSON5: comments and trailing",
        "// commas are fine. Check it with `clawharness config validate`; every key is",
        "// described in docs/configuration.md.",
        "{",
        "  models: {",
        "    providers: {",
        *_provider_lines(plan),
        "    },",
        "  },",
        "  agents: {",
        "    defaults: {",
        "      // provider/model; `clawharness chat --model REF` or /model in a chat switches",
        f"      model: {_s(plan.model_ref)},",
        "      // where the file and exec tools work (default: <state dir>/workspace/main)",
        '      // workspace: "~/agent-workspace",',
        "    },",
        "  },",
        "  tools: {",
        "    // exec (the shell tool) runs the allowlisted commands unasked and asks you before",
        '    // anything else; security: "full" runs everything, "deny" nothing',
        '    exec: { security: "allowlist", ask: "on-miss", allowlist: ["ls", "pwd"] },',
        "  },",
        "}",
    ]
    return "\n".join(lines) + "\n"


_SCRIPT_TEMPLATE: Final = r"""# The offline model's script, written by `clawharness init --offline`.
# Each item answers one model request. An item with `match` answers when its regular
# expression (Python syntax) is found in the latest user message or tool result; items
# are tried in order, and `repeat: true` lets an item answer again. A `tool_calls` item
# asks the host to run tools; their results come back as the next request.
# The format, with more examples: docs/scripted-model.md.
responses:
  # answers to tool results come first: a result's text could match a later item too
  - match: '^Successfully wrote'
    repeat: true
    text: 'Saved it in notes/todo.md. Ask "what is in my note?" to read it back.'
  - match: '^- try clawharness'
    repeat: true
    text: 'Your note says: try clawharness chat.'
  - match: '^total [0-9]+'
    repeat: true
    text: 'Those are the files in my workspace.'
  - match: '^(Linux|Darwin)'
    repeat: true
    text: "That is the name of this machine's system."
  - match: 'was not run'
    repeat: true
    text: 'All right, I did not run it.'

  # answers to what you type
  - match: '(?i)^(hi|hello|hey)\b'
    repeat: true
    text: 'Hello! I am a scripted model, running offline. Try "take a note", "what is in my note?", "list my files" or "run uname".'
  - match: '(?i)what is in my note|read my note'
    repeat: true
    tool_calls:
      - name: read
        arguments: {path: notes/todo.md}
  - match: '(?i)take a note|note that'
    repeat: true
    tool_calls:
      - name: write
        arguments: {path: notes/todo.md, content: "- try clawharness chat\n"}
  - match: '(?i)list (my )?files'
    repeat: true
    tool_calls:
      # ls is on the config's exec allowlist: it runs unasked
      - name: exec
        arguments: {command: 'ls -la'}
  - match: '(?i)run uname'
    repeat: true
    tool_calls:
      # uname is not on the allowlist: the chat asks you first
      - name: exec
        arguments: {command: 'uname -s'}

  # anything else
  - match: '[\s\S]'
    repeat: true
    text: @FALLBACK@
"""


def render_script(plan: StarterPlan) -> str:
    """The offline model's script (YAML with comments)."""
    fallback = ('I only know a few lines: "hello", "take a note", "what is in my note?", '
                f'"list my files" and "run uname". Teach me more in {plan.script_path}')
    # a JSON string is a valid YAML double-quoted scalar
    return _SCRIPT_TEMPLATE.replace("@FALLBACK@", json.dumps(fallback, ensure_ascii=False))
