"""The bundled Codex harness passes the contract kit's registration and route clauses:
it claims an official Responses route only when the route declares `codex`."""

from __future__ import annotations

from clawharness.harnesses.codex.plugin import entry
from clawharness.plugin_sdk.agent_harness import AgentHarnessV2, SupportContext
from clawharness.plugin_sdk.testing import HarnessContractSuite, declared_route, register_plugin


class TestCodexHarnessContract(HarnessContractSuite):
    def make_harness(self) -> AgentHarnessV2:
        return register_plugin(entry, state_dir=self.workdir).harnesses["codex"]

    def declared_route_ctx(self) -> SupportContext:
        return declared_route("codex", "openai", "gpt-5.6-sol", api="openai-responses",
                              base_url="https://api.openai.com/v1")
