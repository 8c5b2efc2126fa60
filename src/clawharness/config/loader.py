"""Find, read and validate the config file.

Location order: an explicit path (`--config`), then `CLAWHARNESS_CONFIG`, then
`<state dir>/config.json5` (or `config.json`), where the state dir is
`CLAWHARNESS_STATE_DIR` or `~/.clawharness`. No file at all is a valid, empty config.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import json5
from pydantic import BaseModel, ValidationError

from clawharness.config.schema import ClawConfig
from clawharness.errors import ConfigError

__all__ = ["LoadedConfig", "load_config", "parse_config", "resolve_config_path", "state_dir"]

CONFIG_FILENAMES = ("config.json5", "config.json", "openclaw.json")


def state_dir(env: Mapping[str, str] | None = None) -> Path:
    """The state directory: `CLAWHARNESS_STATE_DIR`, else `~/.clawharness`."""
    env = os.environ if env is None else env
    raw = env.get("CLAWHARNESS_STATE_DIR")
    return Path(raw).expanduser() if raw else Path.home() / ".clawharness"


def resolve_config_path(explicit: str | os.PathLike[str] | None = None,
                        env: Mapping[str, str] | None = None) -> Path | None:
    """The config file to read, or None when there is none anywhere."""
    env = os.environ if env is None else env
    if explicit:
        return Path(explicit).expanduser()
    from_env = env.get("CLAWHARNESS_CONFIG")
    if from_env:
        return Path(from_env).expanduser()
    base = state_dir(env)
    for name in CONFIG_FILENAMES:
        candidate = base / name
        if candidate.exists():
            return candidate
    return None


@dataclass(slots=True)
class LoadedConfig:
    """A validated config and where it came from."""

    config: ClawConfig
    path: Path | None
    raw: dict[str, Any]
    warnings: list[str] = field(default_factory=list)
    state_dir: Path = field(default_factory=state_dir)


def _key_path(loc: tuple[Any, ...]) -> str:
    parts: list[str] = []
    for item in loc:
        if isinstance(item, int):
            parts.append(f"[{item}]")
        elif parts:
            parts.append(f".{item}")
        else:
            parts.append(str(item))
    # pydantic reports union/function branches in the location; they are not keys
    return "".join(p for p in parts if "function-" not in p and p not in (".str", ".ModelRefSetting"))


def _unknown_keys(model: BaseModel, prefix: str) -> list[str]:
    found: list[str] = []
    for key in (model.model_extra or {}):
        found.append(f"{prefix}{key}" if prefix else key)
    for name, info in type(model).model_fields.items():
        value = getattr(model, name)
        label = info.alias or name
        child = f"{prefix}{label}"
        if isinstance(value, BaseModel):
            found.extend(_unknown_keys(value, child + "."))
        elif isinstance(value, dict):
            for k, v in value.items():
                if isinstance(v, BaseModel):
                    found.extend(_unknown_keys(v, f"{child}.{k}."))
        elif isinstance(value, list):
            for i, v in enumerate(value):
                if isinstance(v, BaseModel):
                    found.extend(_unknown_keys(v, f"{child}[{i}]."))
    return found


def parse_config(raw: Any, *, source: str = "<config>") -> tuple[ClawConfig, list[str]]:
    """Validate a decoded config value. Returns the config and unknown-key warnings."""
    if not isinstance(raw, dict):
        raise ConfigError(f"expected an object at the top level, got {type(raw).__name__}",
                          path=source)
    try:
        config = ClawConfig.model_validate(raw)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = _key_path(tuple(first["loc"])) or "(top level)"
        more = f" (and {exc.error_count() - 1} more problem(s))" if exc.error_count() > 1 else ""
        raise ConfigError(f"{first['msg']}; got {first.get('input')!r}{more}", path=source,
                          key_path=where) from None
    warnings = [f"{source}: unknown key {key!r} (ignored)" for key in _unknown_keys(config, "")]
    return config, warnings


def load_config(explicit: str | os.PathLike[str] | None = None,
                env: Mapping[str, str] | None = None) -> LoadedConfig:
    """Find and load the config. A missing explicit file is an error; no file at all is not."""
    env = os.environ if env is None else env
    path = resolve_config_path(explicit, env)
    if path is None:
        return LoadedConfig(config=ClawConfig(), path=None, raw={}, state_dir=state_dir(env))
    if not path.exists():
        raise ConfigError("config file not found", path=str(path))
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"cannot read config: {exc}", path=str(path)) from None
    try:
        raw = json5.loads(text) if text.strip() else {}
    except ValueError as exc:
        raise ConfigError(f"malformed JSON5: {exc}", path=str(path)) from None
    config, warnings = parse_config(raw, source=str(path))
    return LoadedConfig(config=config, path=path, raw=raw, warnings=warnings,
                        state_dir=state_dir(env))
