"""Tool-result middleware runtime: pairs kept apart, manifest gating, limits, fail-closed."""

from __future__ import annotations

from typing import Any

from clawharness.plugins.entry import ToolResultMiddlewareRegistration
from clawharness.tools.middleware import (
    MAX_MIDDLEWARE_CONTENT_BLOCKS,
    MAX_MIDDLEWARE_TEXT_CHARS,
    MIDDLEWARE_FAILURE_TEXT,
    apply_tool_result_middleware,
    select_tool_result_middlewares,
)

RAW = {"content": [{"type": "text", "text": "raw secret"}], "details": {"exitCode": 0}}
DECLARED = {"redactor": ["openclaw", "codex"], "other": ["codex"]}


def reg(handler: Any, runtimes: tuple[str, ...], matcher: tuple[str, ...] | None = None,
        owner: str = "redactor") -> ToolResultMiddlewareRegistration:
    return ToolResultMiddlewareRegistration(handler, runtimes, matcher, owner)


def replace_text(text: str) -> Any:
    async def handler(event: dict[str, Any], ctx: dict[str, Any]) -> dict[str, Any]:
        return {"result": {**event["result"], "content": [{"type": "text", "text": text}]}}
    return handler


def test_each_registration_keeps_its_own_runtime_and_matcher_pair() -> None:
    shared = replace_text("x")
    regs = [reg(shared, ("openclaw",), ("exec",)), reg(shared, ("codex",), ("read",))]
    assert select_tool_result_middlewares(regs, "openclaw", "exec", declared_runtimes=DECLARED)
    assert not select_tool_result_middlewares(regs, "openclaw", "read", declared_runtimes=DECLARED)
    assert select_tool_result_middlewares(regs, "codex", "read", declared_runtimes=DECLARED)
    assert not select_tool_result_middlewares(regs, "codex", "exec", declared_runtimes=DECLARED)


def test_an_omitted_matcher_matches_every_tool_and_aliases_resolve() -> None:
    regs = [reg(replace_text("x"), ("openclaw",))]
    assert select_tool_result_middlewares(regs, "openclaw", "web_fetch", declared_runtimes=DECLARED)
    only_exec = [reg(replace_text("x"), ("openclaw",), ("exec",))]
    assert select_tool_result_middlewares(only_exec, "PI", "bash", declared_runtimes=DECLARED)


def test_runtimes_missing_from_the_manifest_are_not_applied() -> None:
    regs = [reg(replace_text("x"), ("openclaw",), owner="other")]
    assert not select_tool_result_middlewares(regs, "openclaw", "exec", declared_runtimes=DECLARED)
    assert not select_tool_result_middlewares(regs, "openclaw", "exec", declared_runtimes={})


async def test_handlers_run_in_order_and_may_edit_in_place() -> None:
    def append_marker(event: dict[str, Any], ctx: dict[str, Any]) -> None:
        event["result"]["content"].append({"type": "text", "text": f"[{ctx['runtime']}]"})

    regs = [reg(replace_text("redacted"), ("codex",)), reg(append_marker, ("codex",), owner="other")]
    outcome = await apply_tool_result_middleware(regs, "codex", "exec", RAW,
                                                 declared_runtimes=DECLARED)
    assert not outcome.middleware_error
    assert [b["text"] for b in outcome.result["content"]] == ["redacted", "[codex]"]
    assert outcome.applied == ("redactor", "other")
    assert RAW["content"] == [{"type": "text", "text": "raw secret"}]


async def test_a_failing_middleware_fails_closed_and_records_the_error() -> None:
    async def boom(event: Any, ctx: Any) -> Any:
        raise RuntimeError("raw secret should not leak")

    outcome = await apply_tool_result_middleware([reg(boom, ("openclaw",))], "openclaw", "exec",
                                                 RAW, declared_runtimes=DECLARED)
    assert outcome.middleware_error
    assert outcome.result == {"content": [{"type": "text", "text": MIDDLEWARE_FAILURE_TEXT}],
                              "details": {"status": "error", "middlewareError": True}}
    assert "raw secret" not in str(outcome.result)


async def test_invalid_output_or_in_place_corruption_fails_closed() -> None:
    def corrupt(event: dict[str, Any], ctx: Any) -> None:
        event["result"]["content"] = "not an array"

    async def bad_return(event: Any, ctx: Any) -> Any:
        return {"result": {"content": "nope"}}

    for handler in (corrupt, bad_return):
        outcome = await apply_tool_result_middleware([reg(handler, ("openclaw",))], "openclaw",
                                                     "exec", RAW, declared_runtimes=DECLARED)
        assert outcome.middleware_error
        assert outcome.result["details"]["middlewareError"] is True


async def test_outputs_are_bounded_by_the_limits() -> None:
    async def flood(event: Any, ctx: Any) -> Any:
        blocks = [{"type": "text", "text": "x" * (MAX_MIDDLEWARE_TEXT_CHARS + 10)}] * 300
        return {"result": {"content": blocks}}

    outcome = await apply_tool_result_middleware([reg(flood, ("openclaw",))], "openclaw", "exec",
                                                 RAW, declared_runtimes=DECLARED)
    assert len(outcome.result["content"]) == MAX_MIDDLEWARE_CONTENT_BLOCKS
    assert all(len(b["text"]) == MAX_MIDDLEWARE_TEXT_CHARS for b in outcome.result["content"])

    async def huge_details(event: Any, ctx: Any) -> Any:
        return {"result": {"content": [{"type": "text", "text": "ok"}],
                           "details": {"blob": "y" * 200_000}}}

    rejected = await apply_tool_result_middleware([reg(huge_details, ("openclaw",))], "openclaw",
                                                  "exec", RAW, declared_runtimes=DECLARED)
    assert rejected.middleware_error


async def test_incoming_details_are_made_json_safe_before_middleware_sees_them() -> None:
    seen: dict[str, Any] = {}

    def inspect(event: dict[str, Any], ctx: Any) -> None:
        seen.update(event["result"]["details"])

    cyclic: dict[str, Any] = {"ok": True, "fn": print}
    cyclic["self"] = cyclic
    wrapped = {"content": [{"type": "toolResult", "content": [{"type": "text", "text": "inner"}]}],
               "details": cyclic}
    outcome = await apply_tool_result_middleware([reg(inspect, ("openclaw",))], "openclaw", "exec",
                                                 wrapped, declared_runtimes=DECLARED)
    assert seen == {"ok": True}
    assert outcome.result["content"] == [{"type": "text", "text": "inner"}]


async def test_without_registrations_the_result_passes_untouched() -> None:
    weird = {"content": "native shape", "details": {"fn": print}}
    outcome = await apply_tool_result_middleware([], "openclaw", "exec", weird,
                                                 declared_runtimes=DECLARED)
    assert outcome.result == weird and not outcome.middleware_error


async def test_a_delivered_message_survives_a_failing_middleware() -> None:
    async def boom(event: Any, ctx: Any) -> Any:
        raise RuntimeError("x")

    sent = {"content": [{"type": "text", "text": "sent"}],
            "details": {"messageDelivery": {"status": "settled", "partialDelivery": False,
                                            "createdThreadIds": []}}}
    outcome = await apply_tool_result_middleware(
        [reg(boom, ("openclaw",))], "openclaw", "message", sent,
        declared_runtimes=DECLARED, args={"action": "send", "to": "channel:a"},
    )
    assert outcome.middleware_error
    assert outcome.result["details"]["deliveryStatus"] == "sent"
