"""A server that runs turns imports its model SDKs at start (`Host.preload_model_transports`),
so its first turn does not wait on them: the providers the config names, and those of the
agents' model refs. Checked in a fresh interpreter, where nothing imported them before."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

PROBE = """
import json, sys
from clawharness.host import Host
host = Host.from_config(sys.argv[1])
SDKS = ("anthropic", "httpx", "openai")
before = sorted(m for m in SDKS if m in sys.modules)
loaded = host.preload_model_transports()
after = sorted(m for m in SDKS if m in sys.modules)
print(json.dumps({"before": before, "loaded": list(loaded), "after": after}))
"""


def _preload(tmp_path: Path, config: dict[str, object]) -> dict[str, list[str]]:
    path = tmp_path / "config.json"
    path.write_text(json.dumps(config))
    proc = subprocess.run([sys.executable, "-c", PROBE, str(path)], capture_output=True,
                          text=True, timeout=60, env={"CLAWHARNESS_STATE_DIR": str(tmp_path)})
    assert proc.returncode == 0, proc.stderr
    out: dict[str, list[str]] = json.loads(proc.stdout)
    return out


def test_the_sdks_of_configured_providers_and_agent_models_load_at_once(tmp_path: Path) -> None:
    seen = _preload(tmp_path, {
        "models": {"providers": {"claude": {
            "api": "anthropic-messages", "baseUrl": "http://127.0.0.1:9",
            "models": [{"id": "m"}]}}},
        # a provider named by a ref alone speaks its usual api: openai -> Responses;
        # a legacy Codex ref is read as its repaired openai/ form
        "agents": {"defaults": {"model": "claude/m"},
                   "entries": {"helper": {"model": {"primary": "codex/gpt-5",
                                                    "fallbacks": ["claude/m"]}}}}})
    assert seen["before"] == []
    assert seen["loaded"] == ["clawharness.providers.anthropic_messages",
                              "clawharness.providers.openai_responses"]
    # the Responses API is spoken over httpx alone (`providers.http_stream`): no openai SDK
    assert seen["after"] == ["anthropic", "httpx"]


def test_a_scripted_model_loads_no_sdk(tmp_path: Path) -> None:
    seen = _preload(tmp_path, {
        "models": {"providers": {"local": {"api": "scripted", "models": [
            {"id": "m", "params": {"script": {"responses": [{"text": "hi"}]}}}]}}},
        "agents": {"defaults": {"model": "local/m"}}})
    assert seen == {"before": [], "loaded": [], "after": []}
