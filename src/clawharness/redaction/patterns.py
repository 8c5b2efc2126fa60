"""The built-in secret patterns, as data: what each secret looks like and how it is treated.

Each entry is a Python `re` pattern (compiled with `re.ASCII`, and `re.IGNORECASE` unless
`ignore_case=False`) whose last non-empty group is the secret to mask. The patterns were
recorded from the original's logging redactor and are applied in this order, field and
assignment shapes first, then vendor token shapes; `{BLANK}` and friends (see
`_classes`) stand for the whitespace set secrets end at.

Flags on an entry:
- `model_visible=False`: an ambiguous `KEY=value` shape, too common in real tool output
  to redact there; it still applies to tool-call arguments and details.
- `keeps_shell_references`: `KEY=$KEY` and `KEY=${KEY}` are references, not secrets.
- `value_may_run_into_form_pair`: a matched value that runs on into `&other=` is cut
  there, and only the part before is masked.
- `whole_text_only`: the pattern needs the whole text (long texts are otherwise
  redacted in chunks, to bound the work per pattern).
- `skips_base64_data`: no match right after inline base64 data (`;base64,…`).

The patterns live in `_field_patterns` (`FIELD_PATTERNS`) and `_vendor_patterns`
(`VENDOR_PATTERNS`); `SecretPatternSpec` in `_pattern_spec`. This module is their face.
"""

from __future__ import annotations

from clawharness.redaction._field_patterns import FIELD_PATTERNS
from clawharness.redaction._pattern_spec import SecretPatternSpec
from clawharness.redaction._vendor_patterns import VENDOR_PATTERNS

__all__ = ["FIELD_PATTERNS", "VENDOR_PATTERNS", "SecretPatternSpec"]
