"""The echo plugin, tested the way a harness author tests theirs: the contract kit,
the plugin's registration, and its bindings across turns, resets and deletions."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from clawharness.plugin_sdk.agent_harness import (
    AgentHarnessV2,
    AttemptParams,
    SupportContext,
    message_text,
)
from clawharness.plugin_sdk.agent_harness_session_runtime import native_session_bindings
from clawharness.plugin_sdk.testing import (
    HarnessContractSuite,
    RegisteredPlugin,
    attempt_params,
    declared_route,
    register_plugin,
)

from echo_harness.harness import EchoHarness
from echo_harness.plugin import entry


class TestEchoHarnessContract(HarnessContractSuite):
    """Every clause of the harness contract, collected by pytest."""

    def make_harness(self) -> AgentHarnessV2:
        return EchoHarness(native_session_bindings("echo", state_dir=self.workdir / "state"))

    def declared_route_ctx(self) -> SupportContext:
        return declared_route("echo", "echo", "echo-1")

    def attempt_params(self) -> AttemptParams | None:
        return attempt_params("hello", provider="echo", model_id="echo-1", harness_id="echo",
                              workspace_dir=str(self.workdir))


@pytest.fixture
async def plugin(tmp_path: Path) -> AsyncIterator[RegisteredPlugin]:
    registered = register_plugin(entry, state_dir=tmp_path)
    yield registered
    await registered.close()


def params(prompt: str, tmp_path: Path, session: str = "agent:main:main") -> AttemptParams:
    return attempt_params(prompt, provider="echo", model_id="echo-1", harness_id="echo",
                          session_key=session, workspace_dir=str(tmp_path))


async def test_the_plugin_registers_its_provider_harness_and_bindings(
        plugin: RegisteredPlugin) -> None:
    assert set(plugin.harnesses) == {"echo"}
    [provider] = plugin.providers["echo"]
    [route] = provider.routes
    assert route.runtime_policy is not None and route.runtime_policy.compatible_ids == ("echo",)
    assert set(plugin.session_bindings) == {"echo.bindings"}


async def test_a_session_keeps_its_native_session_until_it_is_reset(
        plugin: RegisteredPlugin, tmp_path: Path) -> None:
    harness = plugin.harnesses["echo"]
    first = await harness.run_attempt(params("one", tmp_path))
    second = await harness.run_attempt(params("two", tmp_path))
    assert first.assistant_texts[0].startswith("echo: one (turn 1 of native session ")
    native = first.assistant_texts[0].rsplit(" ", 1)[1].rstrip(")")
    assert second.assistant_texts == [f"echo: two (turn 2 of native session {native})"]
    assert [message_text(m) for m in second.messages_snapshot] == second.assistant_texts
    other = await harness.run_attempt(params("elsewhere", tmp_path, "agent:main:other"))
    assert "turn 1 of" in other.assistant_texts[0]

    await plugin.reset_session("agent:main:main")
    bindings = plugin.session_bindings["echo.bindings"]
    assert await bindings.read("main", "agent:main:main") is None
    third = await harness.run_attempt(params("three", tmp_path))
    assert "turn 1 of" in third.assistant_texts[0] and native not in third.assistant_texts[0]
    assert await bindings.read("main", "agent:main:other") is not None


async def test_deleting_a_session_deletes_its_binding(plugin: RegisteredPlugin,
                                                      tmp_path: Path) -> None:
    await plugin.harnesses["echo"].run_attempt(params("one", tmp_path))
    await plugin.delete_session("agent:main:main")
    assert await plugin.session_bindings["echo.bindings"].read("main", "agent:main:main") is None
