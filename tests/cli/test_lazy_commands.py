"""The root's command table (`clawharness.cli.main.COMMANDS`) says what the command
modules define: every command of every module is in it, named for the module that
defines it, with the summary its help starts with; the root's help, built without
importing a command module, reads exactly as when every module is imported."""

from __future__ import annotations

import inspect
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from clawharness.cli.lazy import LazyCommandGroup, load_commands
from clawharness.cli.main import COMMANDS, app


def _first_paragraph(command: Any) -> str:
    text = command.short_help or command.help or ""
    return inspect.cleandoc(text).split("\n\n")[0].strip()


def test_every_command_a_module_defines_is_in_the_table_with_its_summary() -> None:
    table = {entry.name: entry for entry in COMMANDS}
    assert len(table) == len(COMMANDS), "a command is named twice"
    for module in sorted({entry.module for entry in COMMANDS}):
        defined = load_commands(module)
        named = {name for name, entry in table.items() if entry.module == module}
        assert set(defined) == named, f"{module} defines {sorted(defined)}, the table names {sorted(named)}"
        for name, command in defined.items():
            assert table[name].summary == _first_paragraph(command), name


def test_the_root_lists_commands_without_importing_them_and_loads_one_when_used() -> None:
    root = typer.main.get_command(app)
    assert isinstance(root, LazyCommandGroup)
    agent = root.commands["agent"]
    assert agent.params == []  # a stand-in: the command's module is not imported yet
    loaded = root.load("agent")
    assert "--message" in {opt for p in loaded.params for opt in p.opts}
    assert root.commands["agent"] is loaded
    assert root.load("no-such-command") is None


def _eager_app() -> typer.Typer:
    """The same root with every module registered up front (how it was built before)."""
    from clawharness.cli import main

    eager = typer.Typer(name="clawharness", help=app.info.help, no_args_is_help=True,
                        add_completion=False, pretty_exceptions_enable=False,
                        context_settings={"help_option_names": ["-h", "--help"]})
    eager.callback()(main._root)
    # commands first, then groups, as typer lists them
    modules = dict.fromkeys(entry.module for entry in COMMANDS)
    for module in modules:
        __import__(module, fromlist=["register"]).register(eager)
    return eager


def test_the_sessions_commands_parameters_need_no_string_evaluated() -> None:
    """typer reads a command's parameters from its annotations: written as objects (no
    `from __future__ import annotations` in the module), not as strings it evaluates one
    by one when `sessions list` loads the module's every command."""
    def callbacks(command: Any) -> list[Any]:
        found = [command.callback] if command.callback is not None else []
        for sub in (getattr(command, "commands", None) or {}).values():
            found += callbacks(sub)
        return found

    found = [cb for command in load_commands("clawharness.cli.sessions_cmd").values()
             for cb in callbacks(command)]
    assert len(found) > 5
    for callback in found:
        strings = [name for name, p in inspect.signature(callback).parameters.items()
                   if isinstance(p.annotation, str)]
        assert strings == [], f"{callback.__qualname__}: {strings}"


def test_the_root_help_reads_as_with_every_module_imported() -> None:
    runner = CliRunner()
    env = {"COLUMNS": "100"}
    lazy = runner.invoke(app, ["--help"], env=env)
    eager = runner.invoke(_eager_app(), ["--help"], env=env)
    assert lazy.exit_code == eager.exit_code == 0
    assert lazy.stdout == eager.stdout
    assert all(f" {entry.name} " in lazy.stdout for entry in COMMANDS)


def test_an_unknown_command_is_a_usage_error_with_a_suggestion() -> None:
    result = CliRunner().invoke(app, ["sesions"])
    assert result.exit_code == 2
    assert "No such command 'sesions'" in result.output
    assert "'sessions'" in result.output


#: what importing the command line must not import: each is imported by the commands
#: (or the parts of the host) that use it, when they run
HEAVY = ("mcp", "temporalio", "opentelemetry.sdk", "openai", "anthropic", "starlette",
         "uvicorn", "psycopg", "prompt_toolkit")


def _imported_after(code: str, env_extra: dict[str, str] | None = None) -> set[str]:
    probe = code + "\nimport sys, json\nprint(json.dumps(sorted(sys.modules)))"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("COV", "CLAWHARNESS_"))}
    env.update(env_extra or {})
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                         env=env, check=True, timeout=120)
    return set(json.loads(out.stdout.strip().splitlines()[-1]))


def _heavy_in(modules: set[str]) -> list[str]:
    return sorted(m for m in modules if any(m == h or m.startswith(h + ".") for h in HEAVY))


def test_importing_the_command_line_imports_no_sdk() -> None:
    modules = _imported_after("import clawharness.cli.main")
    assert _heavy_in(modules) == []


def test_the_root_help_imports_no_command_module_and_no_sdk() -> None:
    modules = _imported_after(
        "import sys\nsys.argv = ['clawharness', '--help']\n"
        "from clawharness.cli.main import app\n"
        "try:\n    app()\nexcept SystemExit:\n    pass")
    assert _heavy_in(modules) == []
    assert not {entry.module for entry in COMMANDS} & modules


def test_the_version_is_answered_before_the_command_line_is_imported() -> None:
    from clawharness import __version__

    out = subprocess.run([sys.executable, "-m", "clawharness", "--version"],
                         capture_output=True, text=True, check=True, timeout=60)
    assert out.stdout == f"clawharness {__version__}\n"
    modules = _imported_after(
        "import sys\nsys.argv = ['clawharness', '--version']\n"
        "from clawharness.cli.entry import main\nmain()")
    assert "typer" not in modules and "rich" not in modules


#: what a command that runs no turn must not import either: the turn runner (and what
#: it brings) is imported by the first turn, the chat's renderer by what shows a turn
TURN_ONLY = ("clawharness.attempt.turn", "clawharness.cli.chat_render")


def _imported_by_command(tmp_path: Path, argv: list[str],
                         defaults: dict[str, Any] | None = None,
                         base_url: str = "http://127.0.0.1:9/v1") -> set[str]:
    """The modules a command imports; `defaults` adds to `agents.defaults`."""
    config = tmp_path / "config.json"
    config.write_text(json.dumps({
        "models": {"providers": {"scripted": {
            "baseUrl": base_url, "api": "openai-responses",
            "apiKey": "offline", "models": [{"id": "m"}]}}},
        "agents": {"defaults": {"model": "scripted/m", "workspace": str(tmp_path / "ws"),
                                **(defaults or {})}},
        "store": {"url": str(tmp_path / "state.db")},
    }))
    modules = _imported_after(
        f"import sys\nsys.argv = ['clawharness', *{argv!r}]\n"
        "from clawharness.cli.entry import main\n"
        "try:\n    main()\nexcept SystemExit as exc:\n    assert not exc.code, exc.code\n",
        {"CLAWHARNESS_CONFIG": str(config), "HOME": str(tmp_path)})
    return modules


@pytest.mark.parametrize("argv", [["config", "validate"], ["sessions", "list"], ["status"]],
                         ids=["config validate", "sessions list", "status"])
def test_a_command_that_runs_no_turn_imports_no_sdk_and_no_turn_runner(
        tmp_path: Path, argv: list[str]) -> None:
    modules = _imported_by_command(tmp_path, argv)
    assert _heavy_in(modules) == []
    assert not set(TURN_ONLY) & modules


def test_config_validate_imports_no_host_part(tmp_path: Path) -> None:
    """It reads and checks the file: no harness types, no host, no event loop, and for a
    valid file no redaction (the first problem to word imports it)."""
    modules = _imported_by_command(tmp_path, ["config", "validate"])
    assert not {"clawharness.harness.types", "clawharness.host", "asyncio",
                "clawharness.redaction"} & modules
    # it prints no table: rich's tables are imported by the first one a command makes
    assert "rich.table" not in modules
    # the file is plain JSON: the JSON5 decoder is imported only for a file that is not
    assert "json5" not in modules


#: what a command that only reads the store must not import: the host makes its plugin
#: runtime, harnesses, agent tools and setup at their first use (`Host.plugins`, ...)
HOST_PARTS = ("clawharness.plugins.runtime", "clawharness.plugins.loader",
              "clawharness.harnesses", "clawharness.harness.types",
              "clawharness.tools.agent_tools", "clawharness.attempt.agent_setup",
              "clawharness.subagents.manager", "clawharness.mcp.manager")


def _under(modules: set[str], roots: tuple[str, ...]) -> list[str]:
    return sorted(m for m in modules if any(m == r or m.startswith(r + ".") for r in roots))


def test_sessions_list_reads_the_store_without_plugins_harnesses_or_tools(
        tmp_path: Path) -> None:
    modules = _imported_by_command(tmp_path, ["sessions", "list"])
    assert _under(modules, HOST_PARTS) == []
    # the turn executor names a turn's result for typing only: no reply delivery code
    assert _under(modules, ("clawharness.delivery", "clawharness.records.tool_calls",
                            "clawharness.records.compaction")) == []
    # with traces and metrics off (the default) a host that runs no turn has no use for
    # OpenTelemetry: its instruments record nothing, the span helpers load with a turn
    assert _under(modules, ("opentelemetry", "clawharness.observability.spans")) == []


def test_status_imports_no_plugin_the_config_leaves_off_and_no_price_table(
        tmp_path: Path) -> None:
    """Codex ships off by default: its gate is read from `BUNDLED_ENTRIES`, so its
    module is not imported to learn that; status prices nothing."""
    modules = _imported_by_command(tmp_path, ["status"])
    assert "clawharness.plugins.loader" in modules  # it did load the plugins
    assert _under(modules, ("clawharness.harnesses.codex", "genai_prices")) == []


def test_a_finished_command_leaves_its_objects_to_the_process_end(tmp_path: Path) -> None:
    """What a command built is frozen out of the collector when it is done, so the
    interpreter's teardown does not walk it all again (docs/cli.md, "Start-up")."""
    config = tmp_path / "config.json"
    config.write_text(json.dumps({"store": {"url": str(tmp_path / "state.db")}}))
    probe = ("import gc, sys\nsys.argv = ['clawharness', 'sessions', 'list', '--json']\n"
             "from clawharness.cli.main import main\n"
             "try:\n    main()\nexcept SystemExit as exc:\n    assert not exc.code, exc.code\n"
             "print(gc.get_freeze_count())")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("COV", "CLAWHARNESS_"))}
    env.update(CLAWHARNESS_CONFIG=str(config), HOME=str(tmp_path))
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                         env=env, check=True, timeout=120)
    assert out.stdout.splitlines()[0] == "[]"
    assert int(out.stdout.splitlines()[-1]) > 10_000


#: what `status` must not import: the bundled harnesses are registered from their facts
#: (`clawharness.plugins.deferred`) and imported when one is asked to run or to support
#: a route; status reads the agents' sandbox, not their tool policy, and no plugin
#: registered tool-result middleware
STATUS_SKIPS = ("clawharness.harnesses.cli", "clawharness.harnesses.acp",
                "clawharness.plugin_sdk._cli_backend", "clawharness.tools.agent_tools",
                "clawharness.tools.policy", "clawharness.tools.middleware")
#: what status imports only when an agent's sandbox is on: the sandbox's runner and
#: backend probes (the settings say it is off)
SANDBOX_PARTS = ("clawharness.tools.sandbox.runner", "clawharness.tools.sandbox.explain",
                 "clawharness.tools.sandbox.backends")
#: what a plugin that keeps session bindings (the example echo harness, installed in the
#: dev environment) brings: the bindings, not the generation, initialization and
#: recovery machinery beside them in `sessions.bindings`
BINDINGS_ONLY_SKIPS = tuple(f"clawharness.sessions.bindings.{m}" for m in (
    "generations", "initialization", "recovery", "user_turn", "bootstrap"))


def test_status_imports_no_bundled_harness_and_no_tool_policy(tmp_path: Path) -> None:
    modules = _imported_by_command(tmp_path, ["status"])
    assert _under(modules, STATUS_SKIPS) == []


def test_status_probes_no_sandbox_when_every_agents_sandbox_is_off(tmp_path: Path) -> None:
    assert _under(_imported_by_command(tmp_path, ["status"]), SANDBOX_PARTS) != []
    off = _imported_by_command(tmp_path, ["status"], {"sandbox": {"mode": "off"}})
    assert _under(off, SANDBOX_PARTS) == []


def test_a_plugin_with_session_bindings_imports_the_bindings_alone(tmp_path: Path) -> None:
    modules = _imported_by_command(tmp_path, ["status"])
    if "echo_harness" not in modules:
        pytest.skip("the example plugin (examples/echo-harness) is not installed")
    assert "clawharness.sessions.bindings.session_bindings" in modules
    assert _under(modules, BINDINGS_ONLY_SKIPS) == []


#: what a one-line turn on the built-in runtime must not import: the bundled harnesses
#: (no plugin harness claims the route), status's report, the sandbox's explanations
#: the tool-result middleware runner (no plugin registered any), and the fork and
#: portable-session code (the sub-agent tool names a fork's result for typing only), and
#: the exec analysis (the turn runs no command)
TURN_SKIPS = ("clawharness.harnesses.cli", "clawharness.harnesses.acp",
              "clawharness.plugin_sdk._cli_backend", "clawharness.cli.status_cmd",
              "clawharness.harness.status", "clawharness.tools.sandbox.explain",
              "clawharness.tools.middleware", "clawharness.sessions.fork",
              "clawharness.sessions.portable", "clawharness.tools.exec_analysis",
              "clawharness.tools.exec_shell_syntax")


def test_a_turn_imports_no_bundled_harness_and_no_status_report(tmp_path: Path) -> None:
    from clawharness.testing import ScriptedModelServer

    server = ScriptedModelServer({"responses": [{"match": "hello", "repeat": True,
                                                 "text": "Hello from the script."}]})
    with server.run_in_thread():
        modules = _imported_by_command(tmp_path, ["agent", "-m", "hello"],
                                       base_url=server.base_url_openai)
    assert "clawharness.attempt.turn" in modules  # it did run a turn
    assert _under(modules, TURN_SKIPS) == []
