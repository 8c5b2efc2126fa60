"""`config get` and `config set`: read one key, or change one key and write the file back.

A value argument is decoded as JSON5 (`8080`, `true`, `["exec"]`, `{id: "codex"}`,
`null`), and taken as a plain string when it does not decode (`openai/gpt-5`); quote it
to force a string (`'"8080"'`). An edit is validated as a whole file before anything is
written: an edit that leaves any error is refused with every problem listed (those that
were already in the file are marked), and the file is left as it was. A written edit
keeps a backup, and the file's comments and layout (`config.writer`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from clawharness.config.keypaths import MISSING, get_at, set_at, unset_at
from clawharness.config.loader import validate_config
from clawharness.config.schema import ClawConfig
from clawharness.config.source import MAX_CONFIG_BYTES, read_config_file
from clawharness.config.wording import closest
from clawharness.config.writer import write_config
from clawharness.errors import ConfigError
from clawharness.problems import (
    ConfigProblem,
    KeyPath,
    KeyPathError,
    format_key_path,
    parse_key_path,
)

__all__ = ["REDACTED", "ConfigEditRefused", "EditOutcome", "KeyValue", "describe_value_for_cli",
           "edit_config", "parse_value_argument", "read_key", "redact_secrets"]

REDACTED: Final = "<redacted>"


def parse_value_argument(text: str) -> Any:
    """A command-line value: JSON5 when it decodes, else the text itself."""
    if len(text.encode("utf-8", errors="surrogatepass")) > MAX_CONFIG_BYTES:
        raise ConfigError(f"the value is longer than the config file limit "
                          f"({MAX_CONFIG_BYTES:,} bytes)")
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        pass
    import json5  # here: `config validate`, which imports this module, decodes no value

    try:
        return json5.loads(text)
    except (ValueError, RecursionError):
        return text


def redact_secrets(value: Any, path: KeyPath) -> Any:
    """`value` with everything under a secret-bearing key replaced by `<redacted>`."""
    from clawharness.redaction.config_text import is_secret_key_path  # not for a validate

    if is_secret_key_path(path):
        return REDACTED if value is not None else None
    if isinstance(value, dict):
        return {k: redact_secrets(v, (*path, k)) for k, v in value.items()}
    if isinstance(value, list):
        return [redact_secrets(v, (*path, i)) for i, v in enumerate(value)]
    return value


def _key_path(text: str) -> KeyPath:
    try:
        return parse_key_path(text)
    except KeyPathError as exc:
        raise ConfigError(str(exc)) from None


def _raw_of(path: Path | None) -> dict[str, Any]:
    if path is None or not path.exists():
        return {}
    raw = read_config_file(path).raw
    if not isinstance(raw, dict):
        raise ConfigError("expected an object at the top level", path=str(path))
    return raw


@dataclass(frozen=True, slots=True)
class KeyValue:
    """`config get`: the value at a key path, and whether it came from the file."""

    key_path: str
    value: Any
    source: str  # "file" or "default"


def _no_value(path: KeyPath, file_raw: Any, defaults: Any, where: str | None) -> ConfigError:
    parent = path[:-1]
    siblings: list[str] = []
    for tree in (file_raw, defaults):
        node = get_at(tree, parent)
        if isinstance(node, dict):
            siblings.extend(str(k) for k in node)
    guess = closest(path[-1], sorted(set(siblings))) if path and isinstance(path[-1], str) else None
    hint = (f"did you mean {format_key_path((*parent, guess))}?" if guess
            else "see docs/configuration.md for the keys")
    return ConfigError(f"nothing is set at {format_key_path(path)}, and it has no default",
                       path=where, hint=hint)


def read_key(config_path: Path | None, key_path: str, *, reveal: bool = False) -> KeyValue:
    """The value at `key_path`: the file's, else the default (secrets redacted unless `reveal`)."""
    path = _key_path(key_path)
    raw = _raw_of(config_path)
    value = get_at(raw, path)
    source = "file"
    if value is MISSING:
        report = validate_config(raw)
        config = report.config if report.config is not None else ClawConfig()
        defaults = config.model_dump(by_alias=True, mode="json")
        value = get_at(defaults, path)
        source = "default"
        if value is MISSING:
            raise _no_value(path, raw, defaults, str(config_path) if config_path else None)
    shown = value if reveal else redact_secrets(value, path)
    return KeyValue(format_key_path(path), shown, source)


class ConfigEditRefused(ConfigError):
    """An edit that would leave the config invalid; nothing was written."""

    code = "config_edit_refused"


@dataclass(frozen=True, slots=True)
class EditOutcome:
    path: Path
    key_path: str
    #: the new value (secrets redacted), or None for an unset
    value: Any
    unset: bool
    changed: bool
    backup: Path | None
    warnings: tuple[ConfigProblem, ...]
    #: the file was edited in place (comments and layout kept); False: written anew
    kept_layout: bool = True


def edit_config(config_path: Path, key_path: str, value: Any = MISSING) -> EditOutcome:
    """Set `key_path` to `value` (or unset it when `value` is MISSING) and write the file.

    Raises ConfigEditRefused, listing every problem, when the result would not validate.
    """
    path = _key_path(key_path)
    raw = _raw_of(config_path)
    unset = value is MISSING
    try:
        if unset:
            new_raw, changed = unset_at(raw, path)
        else:
            old = get_at(raw, path)
            new_raw = set_at(raw, path, value)
            # compared as JSON: in Python `True == 1`, in the file they differ
            changed = old is MISSING or json.dumps(old, sort_keys=True) != json.dumps(
                value, sort_keys=True)
    except KeyPathError as exc:
        raise ConfigError(str(exc), path=str(config_path)) from None
    shown = None if unset else redact_secrets(value, path)
    if not changed:
        report = validate_config(raw)
        return EditOutcome(config_path, format_key_path(path), shown, unset, False, None,
                           report.warnings)
    report = validate_config(new_raw, source=str(config_path))
    if report.errors:
        before = {(p.path, p.message) for p in validate_config(raw).errors}
        marked = tuple(
            ConfigProblem(p.message + (" (already in the file)" if (p.path, p.message) in before
                                       else ""), p.path, p.hint, p.severity, p.code)
            for p in report.errors)
        raise ConfigEditRefused(path=str(config_path), problems=marked)
    written = write_config(config_path, new_raw)
    return EditOutcome(config_path, format_key_path(path), shown, unset, True, written.backup,
                       report.warnings, kept_layout=written.kept_layout or written.backup is None)


def describe_value_for_cli(value: Any) -> str:
    """A value as `config get` prints it: strings bare, everything else as JSON."""
    if isinstance(value, str):
        return value
    return json.dumps(value, indent=2, ensure_ascii=False)
