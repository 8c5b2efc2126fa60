"""`SecretPatternSpec`: one built-in secret shape, a pattern and the flags that say how it
is treated (the flags are described in `patterns`, the face of the built-in patterns)."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["SecretPatternSpec"]


@dataclass(frozen=True, slots=True)
class SecretPatternSpec:
    """One secret shape (its flags: see the docstring of `patterns`)."""

    name: str
    #: None: the secret is found by the scanner of this name (see `scanners`)
    pattern: str | None
    ignore_case: bool = True
    model_visible: bool = True
    keeps_shell_references: bool = False
    value_may_run_into_form_pair: bool = False
    whole_text_only: bool = False
    skips_base64_data: bool = False
