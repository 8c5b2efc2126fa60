"""Find, read and validate the config file.

Location order: an explicit path (`--config`), then `CLAWHARNESS_CONFIG`, then
`<state dir>/config.json5` (or `config.json`), where the state dir is
`CLAWHARNESS_STATE_DIR` or `~/.clawharness`. No file at all is a valid, empty config.
Validation reports every problem at once (`ConfigError.problems`); see
docs/configuration.md for the rules, the limits and how secrets are kept out of messages.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from clawharness._config_paths import CONFIG_FILENAMES, resolve_config_path, state_dir
from clawharness.config.advice import config_warnings
from clawharness.config.legacy import legacy_problems
from clawharness.config.messages import problems_from_validation_error
from clawharness.config.schema import ClawConfig
from clawharness.config.source import check_value_depth, read_config_file
from clawharness.config.textscan import TextScan
from clawharness.errors import ConfigError
from clawharness.problems import ConfigProblem, KeyPath

__all__ = ["CONFIG_FILENAMES", "ConfigReport", "LoadedConfig", "load_config", "parse_config",
           "resolve_config_path", "state_dir", "validate_config"]


@dataclass(slots=True)
class LoadedConfig:
    """A validated config and where it came from."""

    config: ClawConfig
    path: Path | None
    raw: dict[str, Any]
    warnings: list[str] = field(default_factory=list)
    #: the warnings as problems (key path, line, hint); a loaded config has no errors
    problems: tuple[ConfigProblem, ...] = ()
    state_dir: Path = field(default_factory=state_dir)


@dataclass(frozen=True, slots=True)
class ConfigReport:
    """Everything validation found: the config (None when any error) and every problem."""

    config: ClawConfig | None
    problems: tuple[ConfigProblem, ...]

    @property
    def errors(self) -> tuple[ConfigProblem, ...]:
        return tuple(p for p in self.problems if p.severity == "error")

    @property
    def warnings(self) -> tuple[ConfigProblem, ...]:
        return tuple(p for p in self.problems if p.severity == "warning")


def validate_config(raw: Any, *, source: str = "<config>", scan: TextScan | None = None,
                    env: Mapping[str, str] | None = None) -> ConfigReport:
    """Every problem in a decoded config: schema and start-up checks, then warnings.

    Never raises for a bad value: the problems say what is wrong. This is the one set of
    checks behind `config validate`, every command's start-up and `doctor`.
    """
    line_of = scan.line_of if scan is not None else None
    if not isinstance(raw, dict):
        kind = "a list" if isinstance(raw, list) else type(raw).__name__
        return ConfigReport(None, (ConfigProblem(
            f"expected an object at the top level, got {kind}",
            hint="a config file is one { ... } object"),))
    check_value_depth(raw, source=source)
    try:
        config = ClawConfig.model_validate(raw)
    except ValidationError as exc:
        errors = _in_file_order(problems_from_validation_error(exc, raw, line_of))
        # legacy refs are worth knowing about even in a file that does not validate
        extra = legacy_problems(raw)
        return ConfigReport(None, tuple(errors + _at_lines(extra, line_of)))
    warnings = _at_lines(config_warnings(config, raw, env), line_of)
    return ConfigReport(config, tuple(warnings))


def _in_file_order(problems: list[ConfigProblem]) -> list[ConfigProblem]:
    # problems without a line keep their place after those with one (sorted is stable)
    return sorted(problems, key=lambda p: p.line if p.line is not None else 1 << 30)


def _at_lines(problems: list[ConfigProblem],
              line_of: Callable[[KeyPath], int | None] | None) -> list[ConfigProblem]:
    if line_of is None:
        return problems
    return [p.at_line(line_of(p.path)) for p in problems]


def parse_config(raw: Any, *, source: str = "<config>", scan: TextScan | None = None,
                 env: Mapping[str, str] | None = None) -> tuple[ClawConfig, list[str]]:
    """Validate a decoded config value. Returns the config and its warnings (as text).

    Raises ConfigError listing every error (`exc.problems`).
    """
    report = validate_config(raw, source=source, scan=scan, env=env)
    if report.config is None:
        raise ConfigError(path=source, problems=report.errors)
    return report.config, [w.describe(source) for w in report.warnings]


def load_config(explicit: str | os.PathLike[str] | None = None,
                env: Mapping[str, str] | None = None) -> LoadedConfig:
    """Find and load the config. A missing explicit file is an error; no file at all is not."""
    env = os.environ if env is None else env
    path = resolve_config_path(explicit, env)
    if path is None:
        return LoadedConfig(config=ClawConfig(), path=None, raw={}, state_dir=state_dir(env))
    decoded = read_config_file(path)
    report = validate_config(decoded.raw, source=str(path), scan=decoded.scan, env=env)
    if report.config is None:
        raise ConfigError(path=str(path), problems=report.errors)
    return LoadedConfig(config=report.config, path=path, raw=decoded.raw,
                        warnings=[w.describe(str(path)) for w in report.warnings],
                        problems=report.warnings, state_dir=state_dir(env))
