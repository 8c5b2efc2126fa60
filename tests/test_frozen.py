"""`quick_maker`: the same frozen object as the class makes, by a quicker `__init__`."""

from __future__ import annotations

import copy
import dataclasses
import pickle
from typing import Any

import pytest

from clawharness._frozen import quick_maker
from clawharness.harness.types import AttemptParams, make_attempt_params
from clawharness.providers import ModelRequest, make_model_request


@dataclasses.dataclass(frozen=True, slots=True)
class Sample:
    name: str
    size: int = 3
    tags: list[str] = dataclasses.field(default_factory=list)


make_sample = quick_maker(Sample)


def test_it_makes_an_instance_of_the_class_itself_equal_to_the_class_s_own() -> None:
    made = make_sample("a", tags=["x"])
    assert type(made) is Sample
    assert made == Sample("a", 3, ["x"])
    assert make_sample("b") == Sample("b")


def test_a_default_factory_makes_a_new_value_each_time() -> None:
    first, second = make_sample("a"), make_sample("a")
    assert first.tags == [] and first.tags is not second.tags


def test_the_made_object_stays_frozen() -> None:
    made = make_sample("a")
    with pytest.raises(dataclasses.FrozenInstanceError):
        made.name = "b"  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        del made.size  # type: ignore[misc]
    assert dataclasses.replace(made, size=9) == Sample("a", 9)
    assert copy.copy(made) == made and pickle.loads(pickle.dumps(made)) == made


def test_missing_and_unknown_arguments_are_refused_as_the_class_refuses_them() -> None:
    with pytest.raises(TypeError, match="name"):
        make_sample()  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="colour"):
        make_sample("a", colour="red")  # type: ignore[call-arg]


def test_only_frozen_slotted_dataclasses_without_post_init_are_taken() -> None:
    @dataclasses.dataclass(frozen=True)
    class NoSlots:
        name: str

    @dataclasses.dataclass(slots=True)
    class Mutable:
        name: str

    @dataclasses.dataclass(frozen=True, slots=True)
    class Checked:
        name: str

        def __post_init__(self) -> None:
            pass

    @dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
    class KeywordOnly:
        name: str

    for cls in (NoSlots, Mutable, Checked, KeywordOnly):
        with pytest.raises(TypeError):
            quick_maker(cls)


def test_the_host_s_makers_match_their_classes() -> None:
    assert make_model_request("m", None, []) == ModelRequest("m", None, [])
    given: dict[str, Any] = {
        "run_id": "r", "session_key": "k", "session_id": "s", "agent_id": "a", "prompt": "p",
        "provider": "x", "model_id": "m", "model": None, "workspace_dir": "/",
        "host_capabilities": None, "runtime_plan": None, "max_steps": 3}
    made = make_attempt_params(**given)
    assert type(made) is AttemptParams
    # (the default factories' values: a new Event each, equal dicts and auth)
    assert made == AttemptParams(**given, abort=made.abort)
