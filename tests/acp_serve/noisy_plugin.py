"""A plugin that prints to stdout when it loads (as careless code does): over
`clawharness acp` that text must not reach the protocol stream."""

from __future__ import annotations

from typing import Any

from clawharness.plugin_sdk.agent_harness import define_plugin_entry

print("noise from a plugin module")


def _register(api: Any) -> None:
    print("noise from a plugin's register")


entry = define_plugin_entry("noisy", "Noisy", "prints to stdout as it loads", _register)
