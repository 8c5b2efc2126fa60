"""`ToolCallMeta` and the original's `toolMetas[]` shape."""

from __future__ import annotations

from clawharness.records.tool_calls import ToolCallMeta


def test_the_wire_shape_round_trips() -> None:
    meta = ToolCallMeta("exec", "c1", True, "denied", async_started=True)
    assert meta.to_wire() == {"toolName": "exec", "toolCallId": "c1", "isError": True,
                              "error": "denied", "asyncStarted": True}
    assert ToolCallMeta.from_wire(meta.to_wire()) == meta
    assert ToolCallMeta("read").to_wire() == {"toolName": "read", "isError": False}


def test_a_plugin_dict_of_odd_types_reads_as_far_as_it_can() -> None:
    assert ToolCallMeta.from_wire({"toolName": 3, "toolCallId": None, "isError": 1,
                                   "error": {"x": 1}}) == ToolCallMeta("", None, True, None)
