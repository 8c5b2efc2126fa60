"""Config: the openclaw.json shape (JSON5, camelCase keys), loading and repair."""

from clawharness.config.loader import LoadedConfig, load_config, parse_config, state_dir
from clawharness.config.schema import ClawConfig

__all__ = ["ClawConfig", "LoadedConfig", "load_config", "parse_config", "state_dir"]
