"""Spend under control: what turns cost, the budgets they run under, and loops they end.

    pricing.py   usage -> USD: config prices, then the maintained price table
                 (`genai-prices`); `PriceTable`, `Rates`, `Cost`
    budgets.py   which budgets a turn falls under, its estimate and spend in ledger
                 units, the refusal and warning words (the turn's reserve step,
                 `clawharness.attempt.budget_step`, runs them against the store)

docs/budgets.md says what an operator sets and sees.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from clawharness._faces import lazy_face

if TYPE_CHECKING:
    from clawharness.spend.budgets import (
        DEFAULT_OUTPUT_TOKENS,
        NANO,
        TurnBudget,
        estimate,
        extension,
        format_amount,
        prompt_chars,
        refusal_error,
        session_budget,
        spent,
        turn_budget_parts,
        turn_budgets,
        warnings,
    )
    from clawharness.spend.pricing import Cost, PricedUsage, PriceTable, Rates, TokenCounts

__all__ = [
    "DEFAULT_OUTPUT_TOKENS",
    "NANO",
    "Cost",
    "PriceTable",
    "PricedUsage",
    "Rates",
    "TokenCounts",
    "TurnBudget",
    "estimate",
    "extension",
    "format_amount",
    "prompt_chars",
    "refusal_error",
    "session_budget",
    "spent",
    "turn_budget_parts",
    "turn_budgets",
    "warnings",
]

__getattr__, __dir__ = lazy_face(__name__, {
    "DEFAULT_OUTPUT_TOKENS": "clawharness.spend.budgets",
    "NANO": "clawharness.spend.budgets",
    "TurnBudget": "clawharness.spend.budgets",
    "estimate": "clawharness.spend.budgets",
    "extension": "clawharness.spend.budgets",
    "format_amount": "clawharness.spend.budgets",
    "prompt_chars": "clawharness.spend.budgets",
    "refusal_error": "clawharness.spend.budgets",
    "session_budget": "clawharness.spend.budgets",
    "turn_budget_parts": "clawharness.spend.budgets",
    "spent": "clawharness.spend.budgets",
    "turn_budgets": "clawharness.spend.budgets",
    "warnings": "clawharness.spend.budgets",
    "Cost": "clawharness.spend.pricing",
    "PriceTable": "clawharness.spend.pricing",
    "PricedUsage": "clawharness.spend.pricing",
    "Rates": "clawharness.spend.pricing",
    "TokenCounts": "clawharness.spend.pricing",
})
