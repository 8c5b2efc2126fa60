"""Pydantic's validation errors, said in the config file's own terms.

No class names; the accepted forms spelled out (`"provider/model"` or `{primary,
fallbacks}`); for an unknown choice, the valid ones and the closest to what was written.
Values are shown through `describe_value`, so a secret-bearing key never shows its value.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final

from pydantic import BaseModel, ValidationError
from pydantic_core import ErrorDetails

from clawharness.config import schema
from clawharness.config.checks import CheckFailed
from clawharness.config.keypaths import MISSING, child_of
from clawharness.config.wording import closest, one_of
from clawharness.problems import ConfigProblem, KeyPath

__all__ = ["problems_from_validation_error"]

_QUOTED: Final = re.compile(r"'((?:[^'\\]|\\.)*)'")
_MODEL_REF_FORMS: Final = ('a model ref "provider/model", or an object '
                           '{ primary: "provider/model", fallbacks: [...] }')


def describe_value(value: Any, path: KeyPath) -> str:
    """`clawharness.redaction.config_text.describe_value`, imported by the first problem
    to word: a valid config (what `config validate` mostly reads) never loads the
    redaction."""
    from clawharness.redaction import config_text

    return config_text.describe_value(value, path)


def is_secret_key_path(path: KeyPath) -> bool:
    """`clawharness.redaction.config_text.is_secret_key_path`, imported when first used."""
    from clawharness.redaction import config_text

    return config_text.is_secret_key_path(path)


def _key_path(loc: Sequence[str | int], raw: Any, *, missing: bool) -> KeyPath:
    """The real keys of a pydantic location (union branch and validator tags dropped)."""
    parts: list[str | int] = []
    node = raw
    for index, part in enumerate(loc):
        last = index == len(loc) - 1
        child = child_of(node, part)
        if child is not MISSING:
            parts.append(part)
            node = child
        elif last and missing:
            parts.append(part)
    return tuple(parts)


def _fields_of(class_name: str) -> list[str]:
    model = getattr(schema, class_name, None)
    if not isinstance(model, type) or not issubclass(model, BaseModel):
        return []
    return [info.alias or name for name, info in model.model_fields.items()]


def _expected_object(err: ErrorDetails, path: KeyPath) -> tuple[str, str | None]:
    ctx = err.get("ctx") or {}
    class_name = str(ctx.get("class_name", ""))
    if class_name == "ModelRefSetting" or (path and path[-1] == "model"):
        return f"expected {_MODEL_REF_FORMS}", None
    fields = _fields_of(class_name)
    if fields:
        return "expected an object", "its keys: " + ", ".join(fields)
    return "expected an object ({ key: value, ... })", None


def _literal(err: ErrorDetails, path: KeyPath, value: Any) -> tuple[str, str | None]:
    expected = str((err.get("ctx") or {}).get("expected", ""))
    choices = [m.group(1) for m in _QUOTED.finditer(expected)]
    if not choices:
        return f"expected {expected}", None
    guess = None if is_secret_key_path(path) else closest(value, choices)
    hint = f"did you mean {guess!r}?" if guess is not None else None
    return f"expected one of {one_of(choices)}", hint


def _list_hint(path: KeyPath, value: Any) -> str | None:
    if isinstance(value, str) and not is_secret_key_path(path):
        return f"write a list, e.g. [{value!r}]"
    return None


_SIMPLE: Final[Mapping[str, str]] = {
    "string_type": "expected a string",
    "int_type": "expected a whole number",
    "int_parsing": "expected a whole number",
    "int_from_float": "expected a whole number",
    "float_type": "expected a number",
    "float_parsing": "expected a number",
    "finite_number": "expected a finite number (not NaN or Infinity)",
    "bool_type": "expected true or false",
    "bool_parsing": "expected true or false",
    "none_required": "expected null",
    "recursion_loop": "the value is nested too deeply",
}


def _bounds(err: ErrorDetails) -> str | None:
    ctx = err.get("ctx") or {}
    kind = err["type"]
    if kind == "greater_than_equal":
        return f"must be at least {ctx.get('ge')}"
    if kind == "greater_than":
        return f"must be more than {ctx.get('gt')}"
    if kind == "less_than_equal":
        return f"must be at most {ctx.get('le')}"
    if kind == "less_than":
        return f"must be less than {ctx.get('lt')}"
    return None


def _translate(err: ErrorDetails, path: KeyPath) -> ConfigProblem:
    kind = err["type"]
    value = err.get("input")
    hint: str | None = None
    code = "config-invalid"
    show_value = True
    if kind == "value_error" and isinstance((err.get("ctx") or {}).get("error"), CheckFailed):
        failed: CheckFailed = (err.get("ctx") or {})["error"]
        message, hint, code = failed.message, failed.hint, failed.code
        show_value = failed.show_value
    elif kind == "missing":
        message, show_value = "this key is required", False
    elif kind in ("model_type", "dict_type", "model_attributes_type", "dataclass_type"):
        message, hint = _expected_object(err, path)
    elif kind in ("literal_error", "enum"):
        message, hint = _literal(err, path, value)
    elif kind in ("list_type", "tuple_type", "set_type", "iterable_type"):
        message, hint = "expected a list", _list_hint(path, value)
    elif kind in _SIMPLE:
        message = _SIMPLE[kind]
        if kind == "string_type" and path and path[-1] == "apiKey":
            hint = 'write the key as a string, or "${ENV_VAR}" to read it from the environment'
    elif (bounds := _bounds(err)) is not None:
        message = bounds
    else:
        # a pydantic message with no class name in it is already in the user's terms
        message = re.sub(r"\binstance of \w+", "object", err["msg"]).removeprefix("Value error, ")
    if show_value:
        message += f"; got {describe_value(value, path)}"
    return ConfigProblem(message, path, hint, "error", code)


def problems_from_validation_error(exc: ValidationError, raw: Any,
                                   line_of: Callable[[KeyPath], int | None] | None = None,
                                   ) -> list[ConfigProblem]:
    """One problem per pydantic error, in the file's key paths (and lines, when known)."""
    problems: list[ConfigProblem] = []
    seen: set[tuple[KeyPath, str]] = set()
    for err in exc.errors(include_url=False):
        path = _key_path(tuple(err["loc"]), raw, missing=err["type"] == "missing")
        problem = _translate(err, path)
        if (path, problem.message) in seen:
            continue
        seen.add((path, problem.message))
        if line_of is not None:
            problem = problem.at_line(line_of(path))
        problems.append(problem)
    return problems
