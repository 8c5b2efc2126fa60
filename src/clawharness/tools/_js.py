"""Transitional: JavaScript helpers for core modules not yet converted to Python rules.

The implementations live in `clawharness.conformance.jstools`, where JavaScript
semantics belong. Remaining importers (owned by other work in flight; each should move
to `clawharness._text` / Python patterns, then this module goes):

- `tools/shell_scan.py`, `tools/shell_words.py`: JS_WS_CHARS, js_regex, js_trim,
  js_trim_start, lower_or_empty
- `attempt/usage.py`: is_js_number, js_get, js_truthy
- `sessions/subagent.py`: js_trim, normalize_optional_string
"""

from __future__ import annotations

from clawharness.conformance.jstools import (
    JS_WS_CHARS,
    is_js_number,
    js_get,
    js_regex,
    js_trim,
    js_trim_start,
    js_truthy,
    lower_or_empty,
    normalize_optional_string,
)

__all__ = [
    "JS_WS_CHARS",
    "is_js_number",
    "js_get",
    "js_regex",
    "js_trim",
    "js_trim_start",
    "js_truthy",
    "lower_or_empty",
    "normalize_optional_string",
]
