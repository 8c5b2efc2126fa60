"""A real `Host` against the real model, for the `real_model` tests (and the coming
compaction and steering tests: `make_real_host(**config)` takes any config overrides).

The config names two providers: `local`, the real model (through the recording front, with
`contextWindow` from the server), the agents' default; and `scripted`, a scripted model
that plays the turn a tool-call test starts from (`clawharness.testing.real_model.session`:
a 135M model calls a tool reliably only when the history already shows one call).
`seed_tool_history` runs that turn: the host runs the real `ls` on the workspace, and the
transcript holds the call and its result as after any turn.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from clawharness.attempt.turn import TurnOptions, TurnResult
from clawharness.host import Host
from clawharness.testing import ScriptedModelServer
from clawharness.testing.real_model import RealModelServer
from clawharness.testing.real_model.session import (
    SEED_REQUEST,
    SEED_SCRIPT,
    WORKSPACE_FILES,
    scripted_provider,
)

#: the step limit for real turns: a model that calls tools forever still ends
MAX_STEPS = 4


@dataclass
class RealRig:
    host: Host
    model: RealModelServer
    scripted: ScriptedModelServer
    workspace: Path
    config_path: Path
    #: the real model's ref in this config (the agents' default model)
    model_ref: str

    async def turn(self, key: str, message: str, **options: Any) -> TurnResult:
        """A turn on the real model (named explicitly: a session keeps the model it used)."""
        options.setdefault("max_steps", MAX_STEPS)
        return await self.host.run_turn(key, message, TurnOptions(model=self.model_ref,
                                                                  **options))

    async def seed_tool_history(self, key: str) -> TurnResult:
        """The scripted first turn: `ls` called, run by the host, answered."""
        result = await self.host.run_turn(key, SEED_REQUEST, TurnOptions(model="scripted/m"))
        assert result.terminal == "ok", result
        assert [c.tool_name for c in result.tool_calls] == ["ls"]
        return result


RealHostFactory = Callable[..., contextlib.AbstractAsyncContextManager[RealRig]]


def real_host_factory(model: RealModelServer, tmp_path: Path) -> RealHostFactory:
    """`async with factory(**overrides) as rig:`; each override replaces a top-level key."""

    @contextlib.asynccontextmanager
    async def make(**overrides: Any) -> AsyncIterator[RealRig]:
        workspace = tmp_path / "workspace"
        workspace.mkdir(exist_ok=True)
        for name, text in WORKSPACE_FILES.items():
            (workspace / name).write_text(text)
        async with ScriptedModelServer(SEED_SCRIPT) as scripted:
            config: dict[str, Any] = {
                "models": {"providers": {
                    "local": model.provider_config(),
                    "scripted": scripted_provider(scripted.base_url_openai),
                }},
                "agents": {"defaults": {"model": f"local/{model.model_id}",
                                        "workspace": str(workspace)}},
                "store": {"url": str(tmp_path / "clawharness.db")},
            }
            config.update(overrides)
            path = tmp_path / "config.json"
            path.write_text(json.dumps(config, indent=2))
            env = {"CLAWHARNESS_STATE_DIR": str(tmp_path / "state")}
            async with Host.from_config(path, env=env) as host:
                yield RealRig(host, model, scripted, workspace, path, f"local/{model.model_id}")

    return make
