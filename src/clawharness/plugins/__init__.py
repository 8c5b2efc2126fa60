"""Plugins: entries (`define_plugin_entry`, the `register(api)` API: `entry`), loading
(bundled, entry points, config: `loader`), diagnostics, and the host's plugin runtime
(`runtime`: the registry, harness selection and the services a turn asks of plugins).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from clawharness._faces import lazy_face

if TYPE_CHECKING:
    from clawharness.plugins.diagnostics import plugin_findings
    from clawharness.plugins.entry import (
        PluginApi,
        PluginEntry,
        PluginRegistrations,
        ProviderRegistration,
        ToolResultMiddlewareRegistration,
        define_plugin_entry,
    )
    from clawharness.plugins.hooks import PluginHooks
    from clawharness.plugins.loader import load_plugins
    from clawharness.plugins.runtime import PluginRuntime
    from clawharness.plugins.selector import HarnessSelector

__all__ = [
    "HarnessSelector",
    "PluginApi",
    "PluginEntry",
    "PluginHooks",
    "PluginRegistrations",
    "PluginRuntime",
    "ProviderRegistration",
    "ToolResultMiddlewareRegistration",
    "define_plugin_entry",
    "load_plugins",
    "plugin_findings",
]

__getattr__, __dir__ = lazy_face(__name__, {
    "PluginHooks": "clawharness.plugins.hooks",
    "HarnessSelector": "clawharness.plugins.selector",
    "PluginApi": "clawharness.plugins.entry",
    "PluginEntry": "clawharness.plugins.entry",
    "PluginRegistrations": "clawharness.plugins.entry",
    "PluginRuntime": "clawharness.plugins.runtime",
    "ProviderRegistration": "clawharness.plugins.entry",
    "ToolResultMiddlewareRegistration": "clawharness.plugins.entry",
    "define_plugin_entry": "clawharness.plugins.entry",
    "load_plugins": "clawharness.plugins.loader",
    "plugin_findings": "clawharness.plugins.diagnostics",
})
