"""`clawharness init`: a starter config per provider kind, offline, and never a lost file."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import json5
import pytest
from chat_terminal import CLAWHARNESS, Terminal, terminal_env
from typer.testing import CliRunner

from clawharness.cli.main import app
from clawharness.config.loader import load_config

runner = CliRunner()


def invoke(*args: str, env: dict[str, str] | None = None) -> Any:
    return runner.invoke(app, list(args), catch_exceptions=False, env=env)


def flat(text: str) -> str:
    """Output with line wrapping undone (a narrow console wraps long messages)."""
    return " ".join(text.split())


KINDS: list[tuple[list[str], str, str | None, str | None]] = [
    # flags, model ref, key variable, base URL
    (["--provider", "openai"], "openai/gpt-5.5", "OPENAI_API_KEY", None),
    (["--provider", "anthropic", "--model", "claude-opus-4-1"], "anthropic/claude-opus-4-1",
     "ANTHROPIC_API_KEY", None),
    (["--provider", "ollama", "--model", "qwen3"], "ollama/qwen3", None,
     "http://127.0.0.1:11434/v1"),
    (["--provider", "openai-compatible", "--base-url", "https://llm.example.com/v1",
      "--model", "mixtral", "--provider-id", "vllm", "--api-key-env", "VLLM_TOKEN"],
     "vllm/mixtral", "VLLM_TOKEN", "https://llm.example.com/v1"),
]


@pytest.mark.parametrize(("flags", "ref", "key_env", "base_url"), KINDS,
                         ids=["openai", "anthropic", "ollama", "openai-compatible"])
def test_each_provider_kind_writes_a_config_that_validates(
        tmp_path: Path, flags: list[str], ref: str, key_env: str | None,
        base_url: str | None) -> None:
    target = tmp_path / "config.json5"
    out = invoke("init", "--config", str(target), *flags, "--json")
    assert out.exit_code == 0, out.output
    report = json.loads(out.stdout)
    assert report["config"] == str(target) and report["script"] is None
    assert report["model"] == ref
    text = target.read_text()
    assert text.lstrip().startswith("//")  # commented JSON5, for people to edit
    raw = json5.loads(text)
    provider_id = ref.split("/")[0]
    provider = raw["models"]["providers"][provider_id]
    assert raw["agents"]["defaults"]["model"] == ref
    assert provider.get("baseUrl") == base_url
    if key_env is None:
        assert "apiKey" not in provider
    else:
        assert provider["apiKey"] == "${" + key_env + "}"
        assert f"export {key_env}=" in " ".join(report["next"])
    # with the variable set, as the next steps say; the file never holds its value
    env = {key_env: "sk-test-secret-value"} if key_env else {}
    validated = invoke("config", "validate", "--config", str(target), "--json", env=env)
    assert validated.exit_code == 0, validated.output
    assert json.loads(validated.stdout)["ok"] is True
    assert "sk-test-secret-value" not in target.read_text()
    assert load_config(target).config.tools.exec.ask == "on-miss"


def test_offline_writes_a_config_and_script_and_chat_works_right_after(tmp_path: Path) -> None:
    state = tmp_path / "state"
    env = terminal_env(state, {"COLUMNS": "200"})
    done = subprocess.run([CLAWHARNESS, "init", "--offline"], capture_output=True, text=True,
                          env=env, timeout=60)
    assert done.returncode == 0, done.stderr
    config, script = state / "config.json5", state / "offline-script.yaml"
    assert config.exists() and script.exists()
    assert "clawharness chat" in done.stdout and "--config" not in done.stdout
    assert invoke("config", "validate", "--config", str(config)).exit_code == 0
    chat = subprocess.run([CLAWHARNESS, "chat"], input="hello\ntake a note\nwhat is in my note?\n",
                          capture_output=True, text=True, env=env, timeout=120)
    assert chat.returncode == 0, chat.stderr
    assert "I am a scripted model, running offline" in chat.stdout
    assert "tool write to notes/todo.md" in chat.stdout
    assert "Saved it in notes/todo.md" in chat.stdout
    assert "Your note says: try clawharness chat." in chat.stdout
    assert (state / "workspace" / "main" / "notes" / "todo.md").exists()


def test_an_existing_config_is_never_replaced_without_force(tmp_path: Path) -> None:
    target = tmp_path / "config.json5"
    target.write_text('{ agents: { defaults: { model: "mine/kept" } } }\n')
    out = invoke("init", "--config", str(target), "--provider", "openai")
    assert out.exit_code == 1
    assert "already exists; nothing was written" in flat(out.output) and "--force" in flat(out.output)
    assert target.read_text() == '{ agents: { defaults: { model: "mine/kept" } } }\n'
    assert sorted(p.name for p in tmp_path.iterdir()) == ["config.json5"]
    as_json = invoke("init", "--config", str(target), "--provider", "openai", "--json")
    assert json.loads(as_json.stdout)["error"]["type"] == "config_exists"


def test_force_replaces_and_keeps_the_old_file_as_a_backup(tmp_path: Path) -> None:
    target = tmp_path / "config.json5"
    target.write_text("{ old: true }\n")
    out = invoke("init", "--config", str(target), "--provider", "anthropic", "--force", "--json")
    assert out.exit_code == 0, out.output
    (backup,) = (Path(p) for p in json.loads(out.stdout)["backups"])
    assert backup.parent == tmp_path and backup.name.startswith("config.json5.bak-")
    assert backup.read_text() == "{ old: true }\n"
    assert json5.loads(target.read_text())["agents"]["defaults"]["model"].startswith("anthropic/")


def test_offline_refuses_when_only_its_script_exists_and_writes_nothing(tmp_path: Path) -> None:
    script = tmp_path / "offline-script.yaml"
    script.write_text("responses: []\n")
    target = tmp_path / "config.json5"
    out = invoke("init", "--config", str(target), "--offline", "--json")
    assert out.exit_code == 1
    assert "offline-script.yaml already exists" in json.loads(out.stdout)["error"]["message"]
    assert not target.exists() and script.read_text() == "responses: []\n"


def test_bad_options_are_all_listed_and_nothing_is_written(tmp_path: Path) -> None:
    target = tmp_path / "config.json5"
    out = invoke("init", "--config", str(target), "--provider", "openai-compatible",
                 "--api", "grpc", "--json")
    assert out.exit_code == 2
    message = json.loads(out.stdout)["error"]["message"]
    assert "needs --base-url" in message and "needs a model id" in message
    assert "--api 'grpc' is not one of" in message
    assert not target.exists()


def test_a_key_passed_where_a_variable_name_belongs_is_refused_and_not_echoed(tmp_path: Path) -> None:
    key = "sk-proj-Abc123Def456Ghi789Jkl012"
    target = tmp_path / "config.json5"
    out = invoke("init", "--config", str(target), "--provider", "openai", "--api-key-env", key)
    assert out.exit_code == 2
    assert "NAME of an environment variable" in flat(out.output)
    assert key not in flat(out.output) and not target.exists()


def test_plaintext_to_a_remote_host_warns_and_to_an_official_endpoint_is_refused(tmp_path: Path) -> None:
    remote = invoke("init", "--config", str(tmp_path / "a.json5"), "--provider",
                    "openai-compatible", "--base-url", "http://10.1.2.3:8000/v1", "--model", "m",
                    "--no-api-key", "--json")
    assert remote.exit_code == 0, remote.output
    assert any("plaintext http://" in w for w in json.loads(remote.stdout)["warnings"])
    assert "apiKey" not in json5.loads((tmp_path / "a.json5").read_text())["models"]["providers"]["local"]
    official = invoke("init", "--config", str(tmp_path / "b.json5"), "--provider",
                      "openai-compatible", "--base-url", "http://api.openai.com/v1", "--model", "m")
    assert official.exit_code == 2 and "use https://" in flat(official.output)


def test_without_a_terminal_init_says_which_flags_to_pass(tmp_path: Path) -> None:
    out = invoke("init", "--config", str(tmp_path / "c.json5"))
    assert out.exit_code == 2
    assert "--provider openai|anthropic|ollama|openai-compatible" in flat(out.output)
    assert "--offline" in flat(out.output)


def test_on_a_terminal_init_asks_for_what_the_flags_did_not_say(tmp_path: Path) -> None:
    target = tmp_path / "asked.json5"
    term = Terminal(["init", "--config", str(target)], terminal_env(tmp_path / "state"))
    try:
        term.wait_for("Model provider")
        term.send_line("ollama")
        term.wait_for("Ollama URL")
        term.send_line("")  # the default
        term.wait_for("Model id")
        term.send_line("qwen3")
        term.wait_for("wrote")
        assert term.wait_exit() == 0
    finally:
        term.close()
    raw = json5.loads(target.read_text())
    assert raw["agents"]["defaults"]["model"] == "ollama/qwen3"
    assert raw["models"]["providers"]["ollama"]["baseUrl"] == "http://127.0.0.1:11434/v1"
