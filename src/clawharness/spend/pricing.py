"""Usage -> USD: the price of a model's tokens, and the cost of one call or turn.

Prices come from the config first (`models.providers.<id>.models[].cost`, then the
provider's `cost`: USD per million tokens, OpenClaw's shape), then from the maintained
price table of the `genai-prices` package (looked up by the provider id when the table
knows it, else by the provider's `baseUrl`; never by the model name alone, so a local
model that shares a hosted one's name is not charged for). A model neither prices is
unpriced: its cost is None, and only token, turn and time budgets hold it.

Tokens are priced as the providers bill them: `input` is uncached input; cache reads and
writes have their own rates (unset: the input rate); reasoning tokens are part of
`output` and cost the output rate unless a reasoning rate is known; a tiered price
(Anthropic's above 200k input tokens) takes the tier of the call's whole input.

The table's rates are read once per model and day into `Rates`, so pricing a call is a
few multiplications (the package's own calculation is kept for the tests to compare).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Final, Literal, Protocol

from clawharness.config import ClawConfig, ModelCost, ProviderConfig
from clawharness.spend.price_providers import table_may_know

__all__ = ["Cost", "PriceTable", "PricedUsage", "Rates", "TokenCounts"]

log = logging.getLogger("clawharness.spend")

_PER: Final = 1_000_000
_DAY_SECONDS: Final = 86_400
#: an estimate is an upper bound: past the last float digit of the cost it bounds
_ROUND_UP: Final = 1 + 1e-9
#: costs are rounded to this many decimals of a dollar (a pico-dollar, far below the
#: ledger's nano-dollar): a sum of float products shows as 0.00015, not 0.00015000000000000001
_USD_DECIMALS: Final = 12
#: a rate: (input-token threshold above which it applies, USD per million), ascending
_Tiers = tuple[tuple[int, float], ...]
CostSource = Literal["config", "price-table", "reported"]


class PricedUsage(Protocol):
    """What pricing reads of a usage record (the turn's `Usage`): token counts, None
    where not reported. `input` is uncached input; `output` includes reasoning."""

    @property
    def input(self) -> int | None: ...
    @property
    def output(self) -> int | None: ...
    @property
    def cache_read(self) -> int | None: ...
    @property
    def cache_write(self) -> int | None: ...
    @property
    def reasoning_tokens(self) -> int | None: ...


@dataclass(frozen=True, slots=True)
class TokenCounts:
    """Token counts to price (a `PricedUsage` of plain numbers)."""

    input: int | None = 0
    output: int | None = 0
    cache_read: int | None = 0
    cache_write: int | None = 0
    reasoning_tokens: int | None = 0


@dataclass(frozen=True, slots=True)
class Cost:
    """What a call or turn cost, in USD, and where its prices came from."""

    total: float
    input: float = 0.0
    output: float = 0.0
    cache_read: float = 0.0
    cache_write: float = 0.0
    source: CostSource = "price-table"

    def plus(self, other: Cost) -> Cost:
        """Both costs (a turn's over its calls); the source of the first."""
        return Cost(self.total + other.total, self.input + other.input,
                    self.output + other.output, self.cache_read + other.cache_read,
                    self.cache_write + other.cache_write, self.source)

    def to_wire(self) -> dict[str, float]:
        """The original's transcript shape: `{input, output, cacheRead, cacheWrite, total}`."""
        return {"input": self.input, "output": self.output, "cacheRead": self.cache_read,
                "cacheWrite": self.cache_write, "total": self.total}


def _rate(tiers: _Tiers, whole_input: int) -> float:
    price = tiers[0][1]
    for start, tier_price in tiers[1:]:
        if whole_input > start:
            price = tier_price
    return price


@dataclass(frozen=True, slots=True)
class Rates:
    """One model's rates, USD per million tokens (tiers by the call's whole input)."""

    input: _Tiers
    output: _Tiers
    cache_read: _Tiers
    cache_write: _Tiers
    #: None: reasoning tokens cost the output rate
    reasoning: _Tiers | None
    source: CostSource

    @classmethod
    def flat(cls, cost: ModelCost, source: CostSource = "config") -> Rates:
        """The rates a config `cost` states."""
        def one(value: float) -> _Tiers:
            return ((0, value),)
        return cls(one(cost.input), one(cost.output),
                   one(cost.input if cost.cache_read is None else cost.cache_read),
                   one(cost.input if cost.cache_write is None else cost.cache_write),
                   None if cost.reasoning is None else one(cost.reasoning), source)

    def cost(self, usage: PricedUsage) -> Cost:
        """The cost of `usage` at these rates (one model call, or a turn's sum)."""
        uncached = usage.input or 0
        read = usage.cache_read or 0
        write = usage.cache_write or 0
        output = usage.output or 0
        whole = uncached + read + write
        input_usd = uncached * _rate(self.input, whole) / _PER
        read_usd = read * _rate(self.cache_read, whole) / _PER
        write_usd = write * _rate(self.cache_write, whole) / _PER
        if self.reasoning is None:
            output_usd = output * _rate(self.output, whole) / _PER
        else:
            reasoning = min(usage.reasoning_tokens or 0, output)
            output_usd = ((output - reasoning) * _rate(self.output, whole)
                          + reasoning * _rate(self.reasoning, whole)) / _PER
        return Cost(round(input_usd + read_usd + write_usd + output_usd, _USD_DECIMALS),
                    round(input_usd, _USD_DECIMALS), round(output_usd, _USD_DECIMALS),
                    round(read_usd, _USD_DECIMALS), round(write_usd, _USD_DECIMALS),
                    self.source)

    def total(self, usage: PricedUsage) -> float:
        """`cost(usage).total` alone (a running turn's check of what it spent)."""
        if self.reasoning is not None:
            return self.cost(usage).total
        uncached = usage.input or 0
        read = usage.cache_read or 0
        write = usage.cache_write or 0
        whole = uncached + read + write
        return round(uncached * _rate(self.input, whole) / _PER
                     + read * _rate(self.cache_read, whole) / _PER
                     + write * _rate(self.cache_write, whole) / _PER
                     + (usage.output or 0) * _rate(self.output, whole) / _PER, _USD_DECIMALS)

    def estimate(self, input_tokens: int, output_tokens: int) -> float:
        """The most a call of `input_tokens` uncached input and at most `output_tokens`
        output can cost (what a budget reserves for it), rounded up past float error."""
        return _ROUND_UP * (input_tokens * _rate(self.input, input_tokens)
                + output_tokens * max(_rate(self.output, input_tokens),
                                      _rate(self.reasoning or self.output, input_tokens))
                ) / _PER


class PriceTable:
    """The prices of one config's models: config overrides, then the maintained table.

    Lookups are cached per provider, model and UTC day (table prices change on dates)."""

    def __init__(self, providers: Mapping[str, ProviderConfig], *,
                 use_catalog: bool = True) -> None:
        self._providers = providers
        self._use_catalog = use_catalog
        self._cache: dict[tuple[str, str], tuple[int, Rates | None]] = {}

    @classmethod
    def from_config(cls, config: ClawConfig, *, use_catalog: bool = True) -> PriceTable:
        return cls(config.models.providers, use_catalog=use_catalog)

    def rates(self, provider: str, model: str) -> Rates | None:
        """The rates of `provider/model`; None when nothing prices it."""
        today = int(time.time() // _DAY_SECONDS)  # the UTC day's number
        key = (provider, model)
        cached = self._cache.get(key)
        if cached is not None and cached[0] == today:
            return cached[1]
        rates = self._lookup(provider, model)
        self._cache[key] = (today, rates)
        return rates

    def cost(self, provider: str, model: str, usage: PricedUsage) -> Cost | None:
        """The cost of `usage` on `provider/model`; None when the model is unpriced."""
        rates = self.rates(provider, model)
        return None if rates is None else rates.cost(usage)

    def _lookup(self, provider: str, model: str) -> Rates | None:
        row = self._providers.get(provider)
        if row is not None:
            for entry in row.models:
                if entry.id == model and entry.cost is not None:
                    return Rates.flat(entry.cost)
            if row.cost is not None:
                return Rates.flat(row.cost)
        if not self._use_catalog:
            return None
        base_url = None if row is None else row.base_url
        return catalog_rates(provider, model, base_url)


# --- the maintained price table (genai-prices), imported on first use --------------------

_PRICE_KEYS: Final = ("input_mtok", "output_mtok", "cache_read_mtok", "cache_write_mtok",
                      "output_reasoning_mtok")


def _tiers(value: Any) -> _Tiers | None:
    """A genai-prices price (a Decimal, or TieredPrices) as tiers; None when absent."""
    if value is None:
        return None
    base = getattr(value, "base", None)
    if base is None:
        return ((0, float(value)),)
    return ((0, float(base)), *((int(t.start), float(t.price)) for t in value.tiers))


def _is_local(base_url: str) -> bool:
    from urllib.parse import urlsplit

    from clawharness.config import is_loopback_host

    host = urlsplit(base_url).hostname
    return host is None or is_loopback_host(host)


def catalog_rates(provider: str, model: str, base_url: str | None) -> Rates | None:
    """The table's rates for `model` of `provider` (or of the provider serving
    `base_url`); None when the table has no such provider or model. A local endpoint
    (loopback) is never looked up by its URL, and a provider the table has not heard of
    with no URL to look up costs no import of it (`price_providers`)."""
    url = None if base_url is None or _is_local(base_url) else base_url
    if url is None and not table_may_know(provider):
        return None
    from genai_prices import data_snapshot

    snapshot = data_snapshot.get_snapshot()
    try:
        found = snapshot.find_provider_model(model, None, provider, None)
    except LookupError:
        if url is None:
            return None
        try:
            found = snapshot.find_provider_model(model, None, None, url)
        except LookupError:
            return None
    prices = found[1].get_prices(datetime.now(tz=UTC))
    values = {key: _tiers(getattr(prices, key, None)) for key in _PRICE_KEYS}
    input_tiers, output_tiers = values["input_mtok"], values["output_mtok"]
    if input_tiers is None or output_tiers is None:
        log.debug("price table: %s/%s has no token prices", provider, model)
        return None
    return Rates(input_tiers, output_tiers, values["cache_read_mtok"] or input_tiers,
                 values["cache_write_mtok"] or input_tiers, values["output_reasoning_mtok"],
                 "price-table")
