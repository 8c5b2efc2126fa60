"""The providers usable without config (`openai`, `anthropic`): their api, default base
URL and the environment variable of their key. Apart from `routes`, so the config check
(`provider_check`) knows them without importing the harness types routes are made of."""

from __future__ import annotations

__all__ = ["BUILTIN_PROVIDERS"]

#: providers usable without config: (api, default base URL, env var of the key)
BUILTIN_PROVIDERS: dict[str, tuple[str, str | None, str]] = {
    "openai": ("openai-responses", None, "OPENAI_API_KEY"),
    "anthropic": ("anthropic-messages", None, "ANTHROPIC_API_KEY"),
}
