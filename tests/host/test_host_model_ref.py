"""`Host.model_ref` and `Host.status(model=)`: what a front checks before switching models."""

from __future__ import annotations

from typing import Any

import pytest

from clawharness.errors import ModelRefError


async def test_a_bare_model_id_becomes_the_ref_a_turn_would_run(scripted_host: Any) -> None:
    host, _ = await scripted_host({"responses": [{"text": "hi"}]})
    assert host.model_ref("m1") == "scripted/m1"
    assert host.model_ref(" scripted/other ") == "scripted/other"


async def test_a_ref_a_turn_could_not_resolve_is_refused_naming_the_provider(scripted_host: Any) -> None:
    host, _ = await scripted_host({"responses": [{"text": "hi"}]})
    with pytest.raises(ModelRefError, match="unknown provider 'nope'"):
        host.model_ref("nope/x")
    with pytest.raises(ModelRefError, match="write it as provider/model"):
        host.model_ref("not-listed")


async def test_status_shows_what_the_next_turn_would_select_with_another_model(scripted_host: Any) -> None:
    host, _ = await scripted_host({"responses": [{"text": "hi"}]})
    await host.run_turn("s", "hello")
    own = (await host.status("s")).sessions[0].model
    assert own is not None and own.ref == "scripted/m1"
    other = (await host.status("s", model="openai/gpt-5.5")).sessions[0].model
    assert other is not None and other.ref == "openai/gpt-5.5" and other.error is None
    assert other.runtime == "openclaw"
    # the stored session is untouched: only the report changes
    assert (await host.get_session("s")).model_ref == "scripted/m1"
