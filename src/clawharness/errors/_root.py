"""The root of the error tree (`ClawHarnessError`) and the errors right under it that
form no family: config, confirmation, budget, missing extra, input limit, model ref,
workspace. Import them from `clawharness.errors`."""

from __future__ import annotations

from collections.abc import Sequence

from clawharness.problems import ConfigProblem, render_problems, try_parse_key_path

__all__ = [
    "BudgetExceededError",
    "ClawHarnessError",
    "ConfigError",
    "ConfirmationRequiredError",
    "ExtraMissingError",
    "InputLimitError",
    "ModelRefError",
    "WorkspaceInvalidError",
]


class ClawHarnessError(Exception):
    """Root of every error clawharness raises on purpose."""

    #: a stable machine-readable name, used in `--json` error output
    code: str = "error"
    #: what to do about it, when that is known (the CLI shows it under the message)
    hint: str | None = None


class ConfigError(ClawHarnessError):
    """A config problem, or several (`problems`: every one found, each with its key path).

    Every message is built as a `clawharness.problems.ConfigProblem`, the one point
    where config text is redacted, so a secret in the config never reaches the message.
    """

    code = "config_invalid"

    def __init__(self, message: str = "", *, path: str | None = None,
                 key_path: str | None = None, hint: str | None = None,
                 problems: Sequence[ConfigProblem] = ()):
        source = path
        if problems:
            found = tuple(problems)
        else:
            parts = try_parse_key_path(key_path) if key_path else ()
            found = (ConfigProblem(message, path=parts or (), hint=hint),)
            if key_path and parts is None:
                # an unparsable key path is still shown, as the caller wrote it
                source = f"{path} at {key_path}" if path else f"at {key_path}"
        self.problems: tuple[ConfigProblem, ...] = found
        self.path = path
        self.key_path = key_path if key_path is not None else (found[0].key_path or None)
        super().__init__(render_problems(found, source))
        self.detail = found[0].message


class ConfirmationRequiredError(ClawHarnessError):
    code = "confirmation_required"

    def __init__(self, message: str, *, hint: str | None = None):
        super().__init__(message)
        self.hint = hint


class BudgetExceededError(ClawHarnessError):
    """A budget (`budgets` in config) has no room for the turn, which is not started.

    `budget` is the ledger key (`day:2026-12-01`, `agent:main:total`, ...), `measure`
    what ran out (usd, tokens, turns, seconds), `key_path` the config key that sets the
    limit; the message names them and the hint says how to raise it (docs/budgets.md)."""

    code = "budget_exceeded"

    def __init__(self, message: str, *, budget: str, measure: str, key_path: str,
                 hint: str | None = None) -> None:
        super().__init__(message)
        self.budget = budget
        self.measure = measure
        self.key_path = key_path
        self.hint = hint


class ExtraMissingError(ClawHarnessError):
    """A feature needs an optional part of the install (an extra, `clawharness[NAME]`)
    that is not installed; `extra` names it and the hint says how to install it."""

    code = "extra_missing"

    def __init__(self, message: str, *, extra: str, module: str | None = None) -> None:
        super().__init__(message)
        self.extra = extra
        #: the module that could not be imported
        self.module = module
        self.hint = f"pip install 'clawharness[{extra}]'"


class InputLimitError(ClawHarnessError, ValueError):
    """An input (a JSON-RPC frame, tool arguments, a script) is larger or nested deeper
    than its limit. Also a ValueError, so a reader that drops malformed input drops it."""

    code = "input_too_large"


class ModelRefError(ClawHarnessError):
    code = "model_ref_invalid"


class WorkspaceInvalidError(ClawHarnessError):
    """A turn was asked to work in a directory it cannot use (not absolute, missing, not
    a directory)."""

    code = "workspace_invalid"
