"""`clawharness --help`, drawn without building the command line.

Typer draws help with rich, and importing typer with its help renderer costs more than
everything else `--help` does (about two thirds of it). The root's help depends only on
what `clawharness.cli.commands` holds, so the executable draws it here with rich alone,
the way typer draws it: the same usage line, panels, columns, styles and highlighting.
`tests/cli/test_root_help.py` compares the two, byte for byte, at several widths, with
and without colour.

Only the plain case is answered here (`clawharness --help` or `-h`, the executable's own
name, no typer settings in the environment); anything else goes to typer.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence

__all__ = ["answers", "print_root_help"]

_HELP_FLAGS = (["--help"], ["-h"])
#: typer's settings that change how help is drawn: with any of them set, typer draws it
_TYPER_SETTINGS = ("TYPER_USE_RICH", "_TYPER_FORCE_DISABLE_TERMINAL")


def answers(argv: Sequence[str]) -> bool:
    """Whether `argv` (with the program first) asks for exactly the root's help, from the
    executable, in an environment where typer would draw it as this module does."""
    return (len(argv) == 2 and list(argv[1:]) in _HELP_FLAGS
            and os.path.basename(argv[0]) == "clawharness"
            and not any(name in os.environ for name in _TYPER_SETTINGS))


def print_root_help() -> None:
    """Print the root's help to stdout exactly as typer would."""
    import inspect

    from rich.align import Align
    from rich.columns import Columns
    from rich.console import Console
    from rich.highlighter import RegexHighlighter
    from rich.padding import Padding
    from rich.panel import Panel
    from rich.table import Table
    from rich.text import Text
    from rich.theme import Theme

    from clawharness.cli.commands import COMMANDS, ROOT_HELP, ROOT_OPTIONS, RootOption

    class OptionHighlighter(RegexHighlighter):
        highlights = [  # noqa: RUF012 (rich's own class attribute)
            r"(^|\W)(?P<switch>\-\w+)(?![a-zA-Z0-9])",
            r"(^|\W)(?P<option>\-\-[\w\-]+)(?![a-zA-Z0-9])",
            r"(?P<types>\<[^\>]+\>)",
            r"(?P<usage>Usage: )",
        ]

    class TypesHighlighter(RegexHighlighter):
        highlights = [  # noqa: RUF012
            r"^(?P<types_sep>(\[|<))",
            r"(?P<types_sep>\|)",
            r"(?P<types_sep>(\]|>))(\.\.\.)?$",
        ]

    highlighter = OptionHighlighter()
    types_highlighter = TypesHighlighter()
    width = os.environ.get("TERMINAL_WIDTH")
    forced = bool(os.environ.get("GITHUB_ACTIONS") or os.environ.get("FORCE_COLOR")
                  or os.environ.get("PY_COLORS")) or None
    console = Console(
        theme=Theme({"option": "bold cyan", "switch": "bold green",
                     "negative_option": "bold magenta", "negative_switch": "bold red",
                     "types": "bold yellow", "types_sep": "dim", "usage": "yellow"}),
        highlighter=highlighter, color_system="auto", force_terminal=forced,
        width=int(width) if width else None)

    console.print(Padding(highlighter("Usage: clawharness [OPTIONS] COMMAND [ARGS]..."), 1),
                  style="bold")
    console.print(Padding(Align(highlighter(Text.from_markup(ROOT_HELP, style="")), pad=False),
                          (0, 1, 1, 1)))

    def option_help(option: RootOption) -> Columns:
        items = [highlighter(Text.from_markup(option.help, style=""))]
        if option.envvar:
            items.append(Text(f"[env var: {option.envvar}]", style="dim yellow"))
        return Columns(items)

    def option_type(option: RootOption) -> Text:
        return types_highlighter(Text(option.metavar, style="bold yellow", overflow="fold"))

    options = Table(highlight=True, show_header=False, expand=True, box=None,
                    show_lines=False, leading=0, row_styles=None, border_style=None,
                    pad_edge=False, padding=(0, 1))
    for option in ROOT_OPTIONS:
        options.add_row(highlighter(option.long), highlighter(option.short),
                        highlighter(""), highlighter(""), option_type(option),
                        option_help(option))
    console.print(Panel(options, border_style="dim", title="Options", title_align="left"))

    commands = Table(highlight=False, show_header=False, expand=True, box=None,
                     show_lines=False, leading=0, row_styles=None, border_style=None,
                     pad_edge=False, padding=(0, 1))
    commands.add_column(style="bold cyan", no_wrap=True,
                        width=max(len(command.name) for command in COMMANDS))
    commands.add_column("Description", justify="left", no_wrap=False, ratio=10)
    for command in COMMANDS:
        summary = inspect.cleandoc(command.summary).split("\n\n")[0].strip()
        commands.add_row(Text(command.name), highlighter(Text.from_markup(summary, style="")))
    console.print(Panel(commands, border_style="dim", title="Commands", title_align="left"))
    # click then echoes the (empty) text its formatter collected: one more line
    sys.stdout.write("\n")
    sys.stdout.flush()
