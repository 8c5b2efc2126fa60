"""What each of `Host`'s method groups (the mixins in `_host_sessions`, `host_reports`,
`host_portable`) reads of the host in common; each group's own `_HostParts` adds what
only it reads."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from clawharness.config.schema import ClawConfig
    from clawharness.plugins.runtime import PluginRuntime
    from clawharness.store import Store

__all__ = ["HostCore"]


class HostCore(Protocol):
    """The host's configuration, environment, plugins and store."""

    @property
    def config(self) -> ClawConfig: ...
    @property
    def env(self) -> Mapping[str, str]: ...
    @property
    def plugins(self) -> PluginRuntime: ...
    @property
    def store(self) -> Store: ...
