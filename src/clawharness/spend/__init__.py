"""Spend under control: what turns cost, the budgets they run under, and loops they end.

    pricing.py   usage -> USD: config prices, then the maintained price table
                 (`genai-prices`); `PriceTable`, `Rates`, `Cost`

docs/budgets.md says what an operator sets and sees.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from clawharness._faces import lazy_face

if TYPE_CHECKING:
    from clawharness.spend.pricing import Cost, PricedUsage, PriceTable, Rates, TokenCounts

__all__ = ["Cost", "PriceTable", "PricedUsage", "Rates", "TokenCounts"]

__getattr__, __dir__ = lazy_face(__name__, {
    "Cost": "clawharness.spend.pricing",
    "PriceTable": "clawharness.spend.pricing",
    "PricedUsage": "clawharness.spend.pricing",
    "Rates": "clawharness.spend.pricing",
    "TokenCounts": "clawharness.spend.pricing",
})
