"""Which providers the maintained price table (`genai-prices`) knows, without importing it.

Importing the package and reading its snapshot costs a process about 0.3 s; a turn on a
model the table cannot price (a local model under a provider id of its own, as the
scripted model server's is) would pay it for nothing. The table finds a provider by its
id (`find_provider_by_id`: the id itself, else each provider's `provider_match` rule);
`PROVIDERS` below is that data for the version in `TABLE_VERSION`, so
`table_may_know(provider_id)` answers the same question from it. For another installed
version it answers True (look it up), so a newer table is never second-guessed.

`python -m clawharness.spend.price_providers` prints this table from the installed
package (`tests/spend/test_price_providers.py` checks it is current).
"""

from __future__ import annotations

import importlib.metadata
from functools import cache
from typing import Any, Final

__all__ = ["PROVIDERS", "TABLE_VERSION", "describe_providers", "table_may_know"]

#: a provider_match rule: ("contains" | "equals" | "starts_with" | "ends_with" |
#: "regex", text), or ("or" | "and", (rule, ...))
Rule = tuple[Any, ...]

#: the genai-prices version `PROVIDERS` was read from
TABLE_VERSION: Final = "0.2.5"

#: (provider id, its provider_match rule or None), as the table lists them
PROVIDERS: Final[tuple[tuple[str, Rule | None], ...]] = (
    ("anthropic", ("contains", "anthropic")),
    ("arcee", ("contains", "arcee")),
    ("avian", None),
    ("aws", ("or", (("contains", "bedrock"), ("contains", "amazon")))),
    ("azure", None),
    ("baseten", ("contains", "baseten")),
    ("cerebras", ("contains", "cerebras")),
    ("cloudflare", ("contains", "cloudflare")),
    ("cohere", ("contains", "cohere")),
    ("cursor", None),
    ("databricks", ("contains", "databricks")),
    ("deepseek", None),
    ("doubleword", None),
    ("elevenlabs", ("contains", "elevenlabs")),
    ("fireworks", None),
    ("github-copilot", ("contains", "copilot")),
    ("google", ("or", (("contains", "google"), ("contains", "vertex"),
                       ("contains", "gemini")))),
    ("groq", None),
    ("huggingface_cerebras", ("and", (("contains", "huggingface"), ("contains", "cerebras")))),
    ("huggingface_fireworks-ai", ("and", (("contains", "huggingface"),
                                          ("contains", "fireworks-ai")))),
    ("huggingface_groq", ("and", (("contains", "huggingface"), ("contains", "groq")))),
    ("huggingface_hyperbolic", ("and", (("contains", "huggingface"),
                                        ("contains", "hyperbolic")))),
    ("huggingface_nebius", ("and", (("contains", "huggingface"), ("contains", "nebius")))),
    ("huggingface_novita", ("and", (("contains", "huggingface"), ("contains", "novita")))),
    ("huggingface_nscale", ("and", (("contains", "huggingface"), ("contains", "nscale")))),
    ("huggingface_ovhcloud", ("and", (("contains", "huggingface"), ("contains", "ovhcloud")))),
    ("huggingface_publicai", ("and", (("contains", "huggingface"), ("contains", "publicai")))),
    ("huggingface_sambanova", ("and", (("contains", "huggingface"),
                                       ("contains", "sambanova")))),
    ("huggingface_together", ("and", (("contains", "huggingface"), ("contains", "together")))),
    ("meta", ("equals", "meta")),
    ("minimax", None),
    ("mistral", ("starts_with", "mistral")),
    ("modal", ("contains", "modal")),
    ("moonshotai", ("contains", "moonshot")),
    ("novita", None),
    ("openai", ("contains", "openai")),
    ("openai-decisions", None),
    ("openrouter", None),
    ("ovhcloud", None),
    ("perplexity", None),
    ("quicksilverpro", None),
    ("together", ("or", (("equals", "together-ai"), ("equals", "together_ai")))),
    ("typesafe", ("contains", "typesafe")),
    ("voyageai", ("contains", "voyage")),
    ("x-ai", ("equals", "xai")),
    ("zai", None),
    ("zhipuai", None),
)


def _matches(rule: Rule, text: str) -> bool:
    """`rule` on `text`, as the table's `MatchLogic.is_match` reads it."""
    kind, arg = rule
    if kind == "or":
        return any(_matches(r, text) for r in arg)
    if kind == "and":
        return all(_matches(r, text) for r in arg)
    if kind == "regex":
        import re

        return re.search(arg, text) is not None
    low, want = text.lower(), str(arg).lower()
    if kind == "contains":
        return want in low
    if kind == "equals":
        return low == want
    if kind == "starts_with":
        return low.startswith(want)
    if kind == "ends_with":
        return low.endswith(want)
    return True  # a rule this module does not know: look it up


@cache
def _installed_version() -> str | None:
    try:
        return importlib.metadata.version("genai-prices")
    except importlib.metadata.PackageNotFoundError:
        return None


def table_may_know(provider_id: str) -> bool:
    """False when the installed price table finds no provider for `provider_id` (so it
    prices none of its models by id); True when it does, or may (another version)."""
    if _installed_version() != TABLE_VERSION:
        return True
    normalized = provider_id.lower().strip()
    if normalized == "litellm":  # the table reads the provider from the model name
        return True
    return any(pid == normalized or (rule is not None and _matches(rule, normalized))
               for pid, rule in PROVIDERS)


def _rule(logic: Any) -> Rule:
    """A genai-prices `MatchLogic` as a `Rule`."""
    for kind, attr in (("or", "or_"), ("and", "and_")):
        if hasattr(logic, attr):
            return (kind, tuple(_rule(r) for r in getattr(logic, attr)))
    for kind in ("contains", "equals", "starts_with", "ends_with", "regex"):
        if hasattr(logic, kind):
            return (kind, getattr(logic, kind))
    raise TypeError(f"unknown match clause {logic!r}")


def describe_providers() -> tuple[tuple[str, Rule | None], ...]:
    """`PROVIDERS` as the installed package has it (imports it)."""
    from genai_prices import data_snapshot

    return tuple((p.id, None if p.provider_match is None else _rule(p.provider_match))
                 for p in data_snapshot.get_snapshot().providers)


if __name__ == "__main__":  # pragma: no cover - prints the table to paste above
    print(f'TABLE_VERSION: Final = "{importlib.metadata.version("genai-prices")}"')
    for row in describe_providers():
        print(f"    {row!r},")
