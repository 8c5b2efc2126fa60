"""A double for a harness attempt's steering (`AttemptParams.take_steering` and
`return_steering`, docs/steering.md), shared by the native runtimes' steering tests."""

from __future__ import annotations

from collections.abc import Sequence


class Steered:
    """A session queue's steering for one attempt: the messages, taken once."""

    def __init__(self, *messages: str) -> None:
        self.waiting = list(messages)
        self.taken: list[str] = []
        self.returned: list[str] = []

    async def take(self) -> Sequence[str]:
        out, self.waiting = self.waiting, []
        self.taken.extend(out)
        return out

    async def give_back(self, messages: Sequence[str]) -> None:
        self.returned.extend(messages)
