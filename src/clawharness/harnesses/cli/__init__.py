"""CLI-backend harnesses: Claude Code's CLI (`claude`), described for the SDK's CLI-backend
toolkit (`clawharness.plugin_sdk.agent_harness_cli`)."""

from __future__ import annotations
