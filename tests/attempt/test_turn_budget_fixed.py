"""A built-in attempt's budget counts the system prompt and the tools' schemas as
`ContextBudget.fixed_tokens` does, whether the tools were counted before or not."""

from __future__ import annotations

from typing import Any

from clawharness.attempt.compaction import turn_budget
from clawharness.config.context import CompactionConfig
from clawharness.context import ContextBudget
from clawharness.harness.tool_spec import ToolSpec
from clawharness.harness.types import ResolvedModel


async def _run(_: Any) -> Any:
    return None


def _tool(name: str, properties: int) -> ToolSpec:
    schema = {"type": "object",
              "properties": {f"p{i}": {"type": "string"} for i in range(properties)}}
    return ToolSpec(name, f"the {name} tool", schema, _run)


def test_the_fixed_tokens_are_those_of_the_prompt_and_tools_counted_each_time() -> None:
    model = ResolvedModel("openai", "gpt-x", context_window=100_000)
    settings = CompactionConfig()
    tools = (_tool("read", 3), _tool("write", 12))
    other_tools = (_tool("read", 3), _tool("write", 40))
    for system_prompt, offered in (("short", tools), ("short", tools), ("x" * 4_000, tools),
                                   ("short", other_tools), ("short", list(other_tools)),
                                   (None, tools), ("short", tools)):
        budget = turn_budget(model, settings, system_prompt=system_prompt, tools=offered)
        assert budget is not None
        assert budget.fixed == ContextBudget.fixed_tokens(system_prompt, offered)
