"""What every model of the config schema (`schema`) is built on: `_Node` (unknown keys
kept, names or aliases accepted), the list default, and the shared number types."""

from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field

__all__ = [
    "PositiveInt",
    "PositiveSeconds",
]


class _Node(BaseModel):
    model_config = ConfigDict(extra="allow", populate_by_name=True, frozen=False)


def _empty() -> list[Any]:
    """An empty list: the default of the list fields. (Given `list` itself, pydantic reads
    its signature from its text, tokenizing it: ~18 M instructions of every process
    that builds this schema.)"""
    return []


PositiveInt = Annotated[int, Field(ge=1)]
PositiveSeconds = Annotated[float, Field(gt=0, allow_inf_nan=False)]
