"""How a number is written in display text and in the compact JSON of tool results.

The digits are the shortest that read back as the same float (what `repr` gives), but
the notation is fixed as data below, not left to `repr`: integral values print without
a fraction (`5`, not `5.0`), plain decimals are used from 1e-7 up to (not including)
1e21, and outside that range the exponent form is `1e+21` / `1.5e-7` (no zero padding).
That is the notation the original runtime and its JSON writers use, so a detail line or
a serialized tool result reads the same on either host.
"""

from __future__ import annotations

import math
from typing import Final

__all__ = ["format_number"]

#: below this magnitude (as a decimal exponent) plain notation gives way to `e-`
_SMALLEST_PLAIN_EXPONENT: Final = -6
#: from this many integer digits on, plain notation gives way to `e+`
_MAX_PLAIN_DIGITS: Final = 21


def format_number(value: float) -> str:
    """`value` written in the notation described in the module docstring."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        if abs(value) < 10**_MAX_PLAIN_DIGITS:
            return str(value)
        value = float(value)
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    if value == 0:
        return "0"
    sign = "-" if value < 0 else ""
    digits, point = _shortest_digits(abs(value))
    count = len(digits)
    if count <= point <= _MAX_PLAIN_DIGITS:
        return sign + digits + "0" * (point - count)
    if 0 < point <= _MAX_PLAIN_DIGITS:
        return f"{sign}{digits[:point]}.{digits[point:]}"
    if _SMALLEST_PLAIN_EXPONENT < point <= 0:
        return f"{sign}0.{'0' * -point}{digits}"
    exponent = point - 1
    mantissa = digits[0] + (f".{digits[1:]}" if count > 1 else "")
    return f"{sign}{mantissa}e{'+' if exponent >= 0 else '-'}{abs(exponent)}"


def _shortest_digits(value: float) -> tuple[str, int]:
    """The significant digits of `repr(value)` and where the decimal point goes."""
    mantissa, _, exponent_text = repr(value).partition("e")
    exponent = int(exponent_text) if exponent_text else 0
    whole, _, fraction = mantissa.partition(".")
    if fraction == "0":
        fraction = ""
    joined = whole + fraction
    leading_zeros = len(joined) - len(joined.lstrip("0"))
    digits = joined.lstrip("0").rstrip("0") or "0"
    return digits, len(whole) + exponent - leading_zeros
