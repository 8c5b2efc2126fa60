"""Deprecated: kept only because `delivery/silent.py` still imports these names.

The helpers now live in `clawharness.conformance.jsrules`; the attempt core no longer
uses them. Delete this module once the delivery refactor (issue 15) has landed.
"""

from __future__ import annotations

from clawharness.conformance.jsrules import (
    JS_WS,
    get,
    is_js_number,
    is_record,
    js_trim,
    js_truthy,
)

__all__ = ["JS_WS", "get", "is_js_number", "is_record", "js_trim", "js_truthy"]
