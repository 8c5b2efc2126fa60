"""A session forked onto the real Codex (docs/portable-sessions.md, "Fork"): a
conversation held on the built-in runtime is forked at a turn with `--model
openai/<model> --runtime codex`; the fork's first turn runs on Codex through the
app-server, and the model request Codex sends holds the fact from before the fork
point (the recap of the host transcript that a fresh Codex thread is given), not the
turn after it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from codex_rig import CODEX_BIN, MODEL
from test_codex_portable import TIMEOUT, host_config, responses_requests

from clawharness.host import Host
from clawharness.testing import ScriptedModelServer

pytestmark = [pytest.mark.integration,
              pytest.mark.skipif(not CODEX_BIN.exists(), reason="run scripts/native-runtimes.sh")]


async def test_a_built_in_conversation_forked_onto_codex_carries_its_prefix(
        tmp_path: Path) -> None:
    script = {"responses": [
        {"match": "the vault code is 4417", "text": "noted: 4417"},
        {"match": "the decoy code is 9999", "text": "noted: decoy"},
        {"match": "which vault code", "text": "it was 4417"},
    ]}
    async with ScriptedModelServer(script) as server:
        config = host_config(tmp_path, server.base_url_openai, model="scripted/m1")
        state = {"CLAWHARNESS_STATE_DIR": str(tmp_path / "state")}
        async with Host.from_config(config, env=state) as host:
            for text in ("remember: the vault code is 4417", "the decoy code is 9999"):
                turn = await host.run_turn("vault", text)
                assert turn.runtime == "openclaw", turn.error

        # the CLI makes the fork (its own process, the same store)
        forked = subprocess.run([
            sys.executable, "-m", "clawharness", "sessions", "fork", "vault", "--at", "1",
            "--as", "vault-codex", "--model", f"openai/{MODEL}", "--runtime", "codex",
            "--config", str(config), "--json"],
            env={"PATH": "/usr/bin:/bin", **state}, capture_output=True, text=True,
            timeout=TIMEOUT, check=False)
        assert forked.returncode == 0, forked.stderr
        out = json.loads(forked.stdout)
        assert (out["sessionKey"], out["copied"], out["runtime"]) == (
            "agent:main:vault-codex", 2, "codex")

        async with Host.from_config(config, env=state) as host:
            before = len(responses_requests(server))
            turn = await host.run_turn("vault-codex", "which vault code did I give?")
            assert (turn.runtime, turn.terminal, turn.text) == (
                "codex", "ok", "it was 4417"), turn.error
            [request] = responses_requests(server)[before:]
            assert "remember: the vault code is 4417" in request and "noted: 4417" in request
            assert "9999" not in request  # after the fork point
            rows = [r for r in await host.store.state_list("codex.bindings")
                    if r.value.get("threadId")]
            assert len(rows) == 1  # the fork's own thread, bound now
            # the fork's transcript: the copied turn, then Codex's turn, mirrored
            texts = [e.text for e in await host.history("vault-codex")]
            assert texts[:2] == ["remember: the vault code is 4417", "noted: 4417"]
            assert texts[-1] == "it was 4417"
