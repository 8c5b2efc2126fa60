"""Shared fixtures for the scripted model server tests."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Any

import anthropic
import openai
import pytest

from clawharness.testing import ScriptedModelServer

ServerFactory = Callable[..., AbstractAsyncContextManager[ScriptedModelServer]]


@pytest.fixture
def serve() -> ServerFactory:
    """`async with serve(script) as server:` starts a server on a free loopback port."""

    @asynccontextmanager
    async def _serve(script: dict[str, Any], **kwargs: Any) -> AsyncIterator[ScriptedModelServer]:
        async with ScriptedModelServer(script, **kwargs) as server:
            yield server

    return _serve


@pytest.fixture
def openai_for() -> Callable[[ScriptedModelServer], openai.AsyncOpenAI]:
    """An official OpenAI client for a server; it never retries (a retry takes an item)."""

    def make(server: ScriptedModelServer) -> openai.AsyncOpenAI:
        return openai.AsyncOpenAI(base_url=server.base_url_openai, api_key="sk-test", max_retries=0)

    return make


@pytest.fixture
def anthropic_for() -> Callable[[ScriptedModelServer], anthropic.AsyncAnthropic]:
    """An official Anthropic client for a server; it never retries."""

    def make(server: ScriptedModelServer) -> anthropic.AsyncAnthropic:
        return anthropic.AsyncAnthropic(base_url=server.url, api_key="sk-ant-test", max_retries=0)

    return make
