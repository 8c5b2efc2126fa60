"""Which `thread/resume` failures mean "Codex has no such thread" (and cost the binding)."""

from __future__ import annotations

from clawharness.harnesses.codex.errors import CodexRequestError, unknown_thread

THREAD = "01a2337f-b3a9-7a93-b0e2-d45586aa295b"


def refusal(message: str, method: str = "thread/resume") -> CodexRequestError:
    return CodexRequestError(method, -32600, message)


def test_codex_s_own_words_for_a_missing_rollout_of_that_thread_count() -> None:
    assert unknown_thread(refusal(f"no rollout found for thread id {THREAD}"), THREAD)
    assert unknown_thread(refusal(f"no rollout found for conversation id {THREAD}"), THREAD)


def test_other_failures_keep_the_binding() -> None:
    for other in (
        refusal("no rollout found for thread id 00000000-0000-0000-0000-000000000000"),
        refusal("invalid session id: invalid character: expected an optional prefix"),
        refusal("thread not found"),  # no id: not proof that ours is gone
        refusal("model not found"),
        refusal(f"no rollout found for thread id {THREAD}", method="thread/fork"),
        refusal(f"failed to read rollout: no rollout found for thread id {THREAD} (io)"),
    ):
        assert not unknown_thread(other, THREAD), other.detail
