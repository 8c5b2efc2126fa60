"""The optional parts of the install (the extras in pyproject.toml) and the error a feature
raises when the extra it needs is not installed.

The core install is what the command line, `serve` and the built-in runtime need. The
cluster (Temporal, and the PostgreSQL driver it runs on), the PostgreSQL store and OTLP
export are extras: their modules are imported only by the features that use them, and an
import that fails there becomes `ExtraMissingError` naming the extra (docs/cli.md,
"Extras").
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from clawharness.errors import ExtraMissingError

__all__ = ["EXTRAS", "Extra", "extra_missing_error", "requires_extra"]


@dataclass(frozen=True, slots=True)
class Extra:
    """One extra: `pip install 'clawharness[NAME]'`."""

    name: str
    #: what needs it, as the error message says it ("the cluster needs ...")
    feature: str
    #: the modules it installs that the features import (a module, or a package prefix)
    modules: tuple[str, ...]


#: the extras features name, in the order a failed import is matched against them (the
#: cluster first: it installs the PostgreSQL driver too)
EXTRAS: dict[str, Extra] = {
    "cluster": Extra("cluster", "the cluster", ("temporalio", "psycopg", "psycopg_binary")),
    "postgres": Extra("postgres", "the PostgreSQL store", ("psycopg", "psycopg_binary")),
    "otel": Extra("otel", "OTLP export (traces, metrics)",
                  ("opentelemetry.exporter", "opentelemetry.proto", "google.protobuf")),
}


def _installs(extra: Extra, module: str) -> bool:
    return any(module == m or module.startswith(m + ".") or m.startswith(module + ".")
               for m in extra.modules)


def extra_missing_error(exc: ModuleNotFoundError, *,
                        extra: str | None = None) -> ExtraMissingError | None:
    """The error naming the extra that installs the module `exc` could not find (`extra`:
    the one the failing feature needs, if known); None when no extra installs it."""
    missing = exc.name or ""
    candidates = [EXTRAS[extra]] if extra is not None else list(EXTRAS.values())
    for candidate in candidates:
        if missing and _installs(candidate, missing):
            return ExtraMissingError(
                f"{candidate.feature} needs the `{candidate.name}` extra: "
                f"pip install 'clawharness[{candidate.name}]' (no module named {missing!r})",
                extra=candidate.name, module=missing)
    return None


@contextmanager
def requires_extra(name: str) -> Iterator[None]:
    """Imports in this block belong to extra `name`: one that fails because the extra is
    not installed raises `ExtraMissingError`; any other failure is left as it is."""
    try:
        yield
    except ModuleNotFoundError as exc:
        error = extra_missing_error(exc, extra=name)
        if error is None:
            raise
        raise error from exc
