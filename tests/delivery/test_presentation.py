"""Presentations and legacy interactive replies normalize into typed blocks."""

from __future__ import annotations

from clawharness._json import JsonValue
from clawharness.delivery.presentation import (
    ButtonsBlock,
    ControlAction,
    DividerBlock,
    InteractiveReply,
    MessagePresentation,
    PresentationButton,
    PresentationOption,
    SelectBlock,
    TextBlock,
    normalize_legacy_interactive_reply,
    normalize_message_presentation,
)


def test_only_well_formed_controls_survive() -> None:
    raw: JsonValue = {
        "title": " Deploy? ",
        "tone": " WARNING ",
        "blocks": [
            {"type": "buttons", "buttons": [
                {"label": "Yes", "action": {"type": "Command", "command": " /deploy "},
                 "style": "DANGER", "priority": 0, "disabled": True},
                {"label": "Docs", "web_app": {"url": "https://docs.test"}, "reusable": "yes"},
                {"label": "Nothing to do"},
                {"value": "no label"},
            ]},
            {"type": "select", "placeholder": " ", "options": [
                {"text": "Fast", "action": {"type": "callback", "value": "fast"}},
                {"label": "Slow", "value": "slow"},
                {"label": "Empty"},
            ]},
            {"type": "context", "text": " note "},
            {"type": "divider"},
            {"type": "chart", "title": "not normalized here"},
        ],
    }
    assert normalize_message_presentation(raw) == MessagePresentation(
        title="Deploy?",
        tone="warning",
        blocks=(
            ButtonsBlock((
                PresentationButton(
                    label="Yes", action=ControlAction("command", "/deploy"),
                    priority=0, disabled=True, style="danger",
                ),
                PresentationButton(label="Docs", web_app_url="https://docs.test"),
            )),
            SelectBlock((
                PresentationOption(
                    label="Fast", value="fast", action=ControlAction("callback", "fast")
                ),
                PresentationOption(label="Slow", value="slow"),
            )),
            TextBlock("note", kind="context"),
            DividerBlock(),
        ),
    )


def test_an_unknown_style_or_tone_is_dropped() -> None:
    raw: JsonValue = {"tone": "loud", "blocks": [
        {"type": "buttons", "buttons": [{"label": "A", "value": "a", "style": "neon"}]}]}
    assert normalize_message_presentation(raw) == MessagePresentation(
        blocks=(ButtonsBlock((PresentationButton(label="A", value="a"),)),)
    )


def test_a_presentation_without_a_title_or_block_is_none() -> None:
    assert normalize_message_presentation({"title": " ", "blocks": [{"type": "text"}]}) is None
    assert normalize_message_presentation(["not", "an", "object"]) is None


def test_a_legacy_reply_keeps_text_and_controls_but_no_context_or_divider() -> None:
    raw: JsonValue = {"blocks": [
        {"type": "text", "text": "hi"},
        {"type": "context", "text": "dropped"},
        {"type": "divider"},
    ]}
    assert normalize_legacy_interactive_reply(raw) == InteractiveReply((TextBlock("hi"),))
    assert normalize_legacy_interactive_reply({"blocks": [{"type": "divider"}]}) is None
