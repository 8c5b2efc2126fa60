"""When a `/compact` on a Codex thread is done: Codex runs it as a turn of its own and
refuses a new `turn/start` until that turn completes, so the watch waits for the turn's
end, not for the compaction item that comes before it."""

from __future__ import annotations

from clawharness.harnesses.codex.compaction import CompactionWatch
from clawharness.harnesses.codex.protocol import Notification

COMPACTED = Notification("item/completed", {"item": {"type": "contextCompaction"}})


def test_a_compaction_turn_is_done_at_its_end_not_at_its_item() -> None:
    watch = CompactionWatch()
    watch.on_notification(Notification("turn/started", {"turn": {"id": "t"}}))
    watch.on_notification(COMPACTED)
    assert not watch.done.is_set()
    watch.on_notification(Notification("turn/completed", {"turn": {"id": "t"}}))
    assert watch.done.is_set()


def test_without_a_turn_the_compaction_report_ends_it() -> None:
    for report in (COMPACTED, Notification("thread/compacted", {"threadId": "x"})):
        watch = CompactionWatch()
        watch.on_notification(Notification("item/started", {"item": {"type": "reasoning"}}))
        assert not watch.done.is_set()
        watch.on_notification(report)
        assert watch.done.is_set()


def test_an_error_is_kept_for_the_answer() -> None:
    watch = CompactionWatch()
    watch.on_notification(Notification("error", {"error": {"message": "context too small"}}))
    assert watch.error == "context too small" and not watch.done.is_set()
