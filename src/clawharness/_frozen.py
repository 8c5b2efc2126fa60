"""A quicker way to make a frozen, slotted dataclass that is made on every turn.

A frozen dataclass's `__init__` sets each field with `object.__setattr__` (its own
`__setattr__` refuses): about 1.2k instructions a field, so `AttemptParams` (50 fields)
cost about 85k instructions an attempt. `quick_maker(cls)` gives a subclass of `cls`
whose `__init__` takes the same arguments (the same defaults and default factories) and
sets the fields as a mutable class does (a plain store into the slot, a few dozen
instructions), then makes the object an instance of `cls` itself: the caller gets a
`cls`, equal to what `cls(...)` makes and as frozen. Only for classes whose every field
is an `__init__` argument and that have no `__post_init__` (checked here).
"""

from __future__ import annotations

import dataclasses
from typing import Any, TypeVar

__all__ = ["quick_maker"]

T = TypeVar("T")


def quick_maker(cls: type[T]) -> type[T]:
    """A maker of `cls` instances, called as `cls` is (see the module docstring)."""
    params = getattr(cls, "__dataclass_params__", None)
    if (params is None or not params.frozen or "__slots__" not in cls.__dict__
            or hasattr(cls, "__post_init__")):
        raise TypeError(f"{cls.__name__} is not a frozen, slotted dataclass without __post_init__")
    fields = dataclasses.fields(cls)  # type: ignore[arg-type]
    if any(not f.init or f.kw_only for f in fields):
        raise TypeError(f"{cls.__name__}: every field must be a positional __init__ argument")
    names: dict[str, Any] = {"_cls": cls, "_factory": _NO_VALUE}
    args: list[str] = []
    body: list[str] = []
    for f in fields:
        if f.default is not dataclasses.MISSING:
            names[f"_d_{f.name}"] = f.default
            args.append(f"{f.name}=_d_{f.name}")
            body.append(f"    self.{f.name} = {f.name}")
        elif f.default_factory is not dataclasses.MISSING:
            names[f"_f_{f.name}"] = f.default_factory
            args.append(f"{f.name}=_factory")
            body.append(f"    self.{f.name} = _f_{f.name}() if {f.name} is _factory else {f.name}")
        else:
            args.append(f.name)
            body.append(f"    self.{f.name} = {f.name}")
    # (the generated code is made of the field names only, as `dataclasses` makes its own)
    signature, lines = ", ".join(args), "\n".join(body)
    source = f"def __init__(self, {signature}):\n{lines}\n    self.__class__ = _cls\n"
    exec(source, names)
    init = names["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    # a subclass adding no slots: its objects have `cls`'s layout, so one can become a
    # `cls` (`__class__` assignment); with `object`'s `__setattr__` and `__delattr__`
    # (both: they share one C slot) a store into a field is a plain one
    maker = type(f"_Quick{cls.__name__}", (cls,), {
        "__slots__": (), "__init__": init, "__setattr__": object.__setattr__,
        "__delattr__": object.__delattr__, "__module__": cls.__module__})
    return maker


class _NoValue:
    """The default of a field with a default factory: the argument was not passed."""

    def __repr__(self) -> str:
        return "<factory default>"


_NO_VALUE = _NoValue()
