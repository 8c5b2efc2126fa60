"""The host tools' argument validators under arbitrary arguments: a tool either runs or
raises a ToolError saying what was wrong; nothing else escapes (issue 14, property tests).
"""

from __future__ import annotations

import asyncio
import json
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from clawharness.errors import ToolError
from clawharness.harness.types import ToolCallContext
from clawharness.providers.base import parse_tool_arguments
from clawharness.tools.builtin import core_tool_specs
from clawharness.tools.builtin._common import optional_int, require_str

PROPERTY = settings(max_examples=120, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])

scalars = (st.none() | st.booleans() | st.integers() | st.floats()
           | st.text(max_size=30) | st.binary(max_size=8).map(lambda b: b.decode("latin-1")))
values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=3)
                      | st.dictionaries(st.text(max_size=5), inner, max_size=3), max_leaves=6)
paths = st.one_of(st.text(max_size=30), st.sampled_from([
    ".", "..", "../x", "/", "/etc/passwd", "a/../../b", "~", "~root/x", "a\x00b", "a//b/",
    "sub/dir/file.txt", " ", "\u202e", "x" * 300]), values)

TOOL_ARGS = {
    "read": st.fixed_dictionaries({"path": paths}, optional={"offset": values, "limit": values}),
    "write": st.fixed_dictionaries({"path": paths, "content": values}),
    "edit": st.fixed_dictionaries({"path": paths, "oldText": values, "newText": values}),
    "ls": st.fixed_dictionaries({}, optional={"path": paths, "limit": values}),
    "apply_patch": st.fixed_dictionaries({"input": values | st.text(max_size=200)}),
    # a string command would run, so only the shapes the validator must refuse
    "exec": st.fixed_dictionaries({"command": st.one_of(
        st.none(), st.integers(), st.lists(st.text(max_size=3), max_size=2),
        st.sampled_from(["", " ", "\t\n"]))}, optional={"workdir": paths, "timeout": values}),
}


async def _call(tool_name: str, args: dict[str, Any], workspace: Path) -> Any:
    spec = {t.name: t for t in core_tool_specs(None)}[tool_name]
    ctx = ToolCallContext(call_id="c", workspace_dir=str(workspace), abort=asyncio.Event(),
                          session_key="agent:main:main", run_id="r")
    return await spec.execute(args, ctx)


@PROPERTY
@given(st.sampled_from(sorted(TOOL_ARGS)).flatmap(
    lambda name: st.tuples(st.just(name), TOOL_ARGS[name])))
def test_a_tool_given_any_arguments_runs_or_raises_a_tool_error(
        case: tuple[str, dict[str, Any]]) -> None:
    name, args = case
    with tempfile.TemporaryDirectory() as tmp:
        workspace = Path(tmp) / "ws"
        workspace.mkdir()
        (workspace / "sub").mkdir()
        (workspace / "file.txt").write_text("hello\n")
        try:
            result = asyncio.run(_call(name, args, workspace))
        except ToolError as exc:
            assert str(exc)
            return
        assert isinstance(result, dict) and isinstance(result.get("content"), list)


@PROPERTY
@given(st.dictionaries(st.text(max_size=6), values, max_size=4), st.text(max_size=6))
def test_the_shared_validators_raise_only_tool_errors(args: dict[str, Any], key: str) -> None:
    for check in (lambda: require_str(args, key), lambda: require_str(args, key,
                                                                      allow_empty=True),
                  lambda: optional_int(args, key, minimum=1, default=3)):
        try:
            check()
        except ToolError as exc:
            assert repr(key) in str(exc)


@PROPERTY
@given(st.one_of(values.map(json.dumps), st.text(max_size=100),
                 st.integers(0, 3000).map(lambda n: "[" * n + "]" * n),
                 st.integers(0, 3000).map(lambda n: '{"a":' * n + "1" + "}" * n)))
def test_tool_arguments_parse_to_an_object_or_an_error(raw: str) -> None:
    arguments, error = parse_tool_arguments(raw)
    assert isinstance(arguments, dict)
    assert (error is None) or (arguments == {} and isinstance(error, str) and error)


# --- what the search found ---------------------------------------------------------------


def test_an_infinite_or_nan_integer_argument_is_a_tool_input_error() -> None:
    # found: int(float("inf")) raised OverflowError, NaN a ValueError, out of `ls`/`read`
    with tempfile.TemporaryDirectory() as tmp:
        for value in (float("inf"), float("-inf"), float("nan")):
            try:
                asyncio.run(_call("ls", {"limit": value}, Path(tmp)))
            except ToolError as exc:
                assert "argument 'limit' must be an integer" in str(exc)
            else:
                raise AssertionError(f"limit={value} was accepted")


def test_json_nan_and_infinity_are_not_tool_arguments() -> None:
    # Python's json reads them; JSON does not
    for raw in ('{"limit": Infinity}', '{"limit": NaN}', '{"limit": -Infinity}'):
        arguments, error = parse_tool_arguments(raw)
        assert arguments == {} and error is not None and "is not valid JSON" in error


def test_a_blank_path_is_a_tool_error_the_model_reads() -> None:
    # found: `read {"path": " "}` raised a bare ValueError from the workspace resolver
    with tempfile.TemporaryDirectory() as tmp:
        for name in ("read", "write", "edit"):
            args = {"path": " ", "content": "x", "oldText": "a", "newText": "b"}
            if name == "read":
                args = {"path": " "}
            try:
                asyncio.run(_call(name, args, Path(tmp)))
            except ToolError as exc:
                assert "path must be a non-empty string" in str(exc)
            else:
                raise AssertionError(f"{name} accepted a blank path")
