"""Labels for single shell commands: `git status` → `check git status`.

Known tools (git, grep/rg, find, cat/ls/rm, head/tail, sed, cp/mv, curl, package
managers, interpreters) get specific labels; anything else becomes `run <bin> [arg]`.
The label texts are data (`exec_labels.toml`); the option tables here say which
options of a command take a value, so its positional arguments can be found.
"""

from __future__ import annotations

import re
from typing import Final

from clawharness._text import BLANK_CLASS, trim
from clawharness._utf16 import utf16_len
from clawharness.tool_display.specs import exec_labels
from clawharness.tools.shell_words import (
    binary_name,
    first_positional,
    option_value,
    parse_shell_options,
    positional_args,
    strip_outer_quotes,
)

__all__ = ["summarize_known_exec"]

_GIT_GLOBAL_WITH_VALUE = frozenset(
    {"-C", "-c", "--git-dir", "--work-tree", "--namespace", "--config-env"}
)
_SEARCH_COMMON = (
    "-e",
    "--regexp",
    "-f",
    "--file",
    "-m",
    "--max-count",
    "-A",
    "--after-context",
    "-B",
    "--before-context",
    "-C",
    "--context",
)
_GREP_VALUES = (
    "--include",
    "--exclude",
    "--exclude-from",
    "--binary-files",
    "-D",
    "--devices",
    "-d",
    "--directories",
    "--label",
)
_RG_VALUES = (
    "--pre",
    "--pre-glob",
    "--dfa-size-limit",
    "-E",
    "--encoding",
    "--engine",
    "--regex-size-limit",
    "-j",
    "--threads",
    "-g",
    "--glob",
    "--iglob",
    "--ignore-file",
    "-d",
    "--max-depth",
    "--max-filesize",
    "-t",
    "--type",
    "-T",
    "--type-not",
    "--type-add",
    "--type-clear",
    "--color",
    "--colors",
    "--context-separator",
    "--field-context-separator",
    "--field-match-separator",
    "--hostname-bin",
    "--hyperlink-format",
    "-M",
    "--max-columns",
    "--path-separator",
    "-r",
    "--replace",
    "--sort",
    "--sortr",
    "--generate",
)
_B = BLANK_CLASS
_GENERATED_SEARCH_RE: Final = re.compile(
    rf"^search{_B}+(?:[\"']|text(?:{_B}+in(?:{_B}|\Z)|\Z))", re.IGNORECASE | re.ASCII
)
_DASH_NUMBER_RE: Final = re.compile(r"^-\d+\Z", re.ASCII)
_DIGITS_RE: Final = re.compile(r"^\d+\Z", re.ASCII)
_BLANK_RUN_RE: Final = re.compile(rf"{_B}+", re.ASCII)
_UNSAFE_PATTERN_CHARS_RE: Final = re.compile(r"[\r\n`]", re.ASCII)
_BASH_FAILED_RE: Final = re.compile(r"^Bash failed:", re.IGNORECASE | re.ASCII)
_SPLIT_SUMMARY_RE: Final = re.compile(r"(?:\||->)", re.ASCII)
_URL_TOKEN_RE: Final = re.compile(r"^https?://", re.IGNORECASE | re.ASCII)
_SIMPLE_ARG_RE: Final = re.compile(r"^[A-Za-z0-9._/-]+\Z", re.ASCII)
_SED_RANGE_RE: Final = re.compile(r"^([0-9]+),([0-9]+)p\Z", re.ASCII)
_SED_SINGLE_RE: Final = re.compile(r"^([0-9]+)p\Z", re.ASCII)


def _git_summary(words: list[str]) -> str:
    git_cwd = option_value(words, ["-C"])
    sub: str | None = None
    index = 1
    while index < len(words):
        token = words[index]
        if not token:
            index += 1
            continue
        if token == "--":
            sub = first_positional(words, index + 1)
            break
        if token.startswith("-"):
            if not (token.startswith("--") and "=" in token) and token in _GIT_GLOBAL_WITH_VALUE:
                index += 1
            index += 1
            continue
        sub = token
        break
    mapped = exec_labels().git_subcommands.get(sub) if sub else None
    if mapped:
        return mapped
    if not sub or sub.startswith("/") or sub.startswith("~") or "/" in sub:
        return f"run git command in {git_cwd}" if git_cwd else "run git command"
    return f"run git {sub}"


def _is_unsafe_search_pattern(pattern: str) -> bool:
    trimmed = trim(pattern)
    if not trimmed or utf16_len(pattern) > 120 or _UNSAFE_PATTERN_CHARS_RE.search(pattern):
        return True
    if _BASH_FAILED_RE.search(trimmed):
        return True
    return any(
        _GENERATED_SEARCH_RE.search(trim(part)) for part in _SPLIT_SUMMARY_RE.split(trimmed)
    )


def _search_summary(bin_name: str, words: list[str]) -> str:
    extra = _GREP_VALUES if bin_name == "grep" else _RG_VALUES
    parsed = parse_shell_options(words, 1, [*_SEARCH_COMMON, *extra])
    positional, options = parsed.positional, parsed.options
    if bin_name != "grep" and "--files" in options:
        target = positional[-1] if positional else None
        return f"list files in {target}" if target else "list files"
    explicit = any(name in options for name in ("-e", "--regexp", "-f", "--file"))
    pattern = options.get("-e")
    if pattern is None:
        pattern = options.get("--regexp")
    if pattern is None and not explicit:
        pattern = positional[0] if positional else None
    target = positional[-1] if (explicit or len(positional) > 1) and positional else None
    if pattern:
        if _is_unsafe_search_pattern(pattern):
            return f"search text in {target}" if target else "search text"
        return f'search "{pattern}" in {target}' if target else f'search "{pattern}"'
    return f"search text in {target}" if target else "search text"


def _head_tail_summary(bin_name: str, words: list[str]) -> str:
    lines = option_value(words, ["-n", "--lines"])
    if lines is None:
        numeric = next((t for t in words[1:] if _DASH_NUMBER_RE.search(t)), None)
        lines = numeric[1:] if numeric else None
    positional = positional_args(words, 1, ["-n", "--lines"])
    target = positional[-1] if positional else None
    if target and _DIGITS_RE.search(target) and len(positional) == 1:
        target = None
    side = "first" if bin_name == "head" else "last"
    unit = "line" if lines == "1" else "lines"
    if lines and target:
        return f"show {side} {lines} {unit} of {target}"
    if lines:
        return f"show {side} {lines} {unit}"
    if target:
        return f"show {target}"
    return f"show {bin_name} output"


def _sed_summary(words: list[str]) -> str:
    expression = option_value(words, ["-e", "--expression"])
    positional = positional_args(words, 1, ["-e", "--expression", "-f", "--file"])
    script = expression if expression is not None else (positional[0] if positional else None)
    if expression:
        target = positional[0] if positional else None
    else:
        target = positional[1] if len(positional) > 1 else None
    if script:
        stripped = strip_outer_quotes(script)
        compact = _BLANK_RUN_RE.sub("", stripped if stripped is not None else script)
        found = _SED_RANGE_RE.search(compact)
        if found:
            span = f"{found.group(1)}-{found.group(2)}"
            return f"print lines {span} from {target}" if target else f"print lines {span}"
        single = _SED_SINGLE_RE.search(compact)
        if single:
            line = single.group(1)
            return f"print line {line} from {target}" if target else f"print line {line}"
    return f"run sed on {target}" if target else "run sed transform"


def _interpreter_summary(bin_name: str, words: list[str], here_input: str | None) -> str:
    if here_input:
        return f"run {bin_name} inline script ({here_input})"
    if bin_name == "node":
        inline = option_value(words, ["-e", "--eval"])
    elif bin_name in ("python", "python3"):
        inline = option_value(words, ["-c"])
    else:
        inline = None
    if inline is not None:
        return f"run {bin_name} inline script"
    skip = ["-e", "--eval", "-m"] if bin_name == "node" else ["-c", "-e", "--eval", "-m"]
    script = first_positional(words, 1, skip)
    if not script:
        return f"run {bin_name}"
    if bin_name == "node":
        checking = "--check" in words or "-c" in words
        return f"{'check js syntax for' if checking else 'run node script'} {script}"
    return f"run {bin_name} {script}"


def summarize_known_exec(words: list[str], here_input: str | None = None) -> str:
    """Label one simple command from its words."""
    if not words:
        return "run command"
    found = binary_name(words[0])
    bin_name = found if found is not None else "command"
    if bin_name == "git":
        return _git_summary(words)
    if bin_name in ("grep", "rg", "ripgrep"):
        return _search_summary(bin_name, words)
    if bin_name == "find":
        path = words[1] if len(words) > 1 and words[1] and not words[1].startswith("-") else "."
        name = option_value(words, ["-name", "-iname"])
        return f'find files named "{name}" in {path}' if name else f"find files in {path}"
    file_commands = exec_labels().file_commands
    if bin_name in file_commands:
        prefix, fallback = file_commands[bin_name]
        target = first_positional(words, 1)
        return f"{prefix} {target}" if target else fallback
    if bin_name in ("head", "tail"):
        return _head_tail_summary(bin_name, words)
    if bin_name == "sed":
        return _sed_summary(words)
    if bin_name in ("printf", "echo"):
        return "print text"
    if bin_name in ("cp", "mv"):
        positional = positional_args(words, 1, ["-t", "--target-directory", "-S", "--suffix"])
        action = "copy" if bin_name == "cp" else "move"
        if len(positional) > 1 and positional[0] and positional[1]:
            return f"{action} {positional[0]} to {positional[1]}"
        if positional and positional[0]:
            return f"{action} {positional[0]}"
        return f"{action} files"
    if bin_name in ("curl", "wget"):
        url = next((t for t in words if _URL_TOKEN_RE.search(t)), None)
        return f"fetch {url}" if url else "fetch url"
    if bin_name in ("npm", "pnpm", "yarn", "bun"):
        positional = positional_args(words, 1, ["--prefix", "-C", "--cwd", "--config"])
        sub = positional[0] if positional else "command"
        if sub == "run":
            return f"run {positional[1]}" if len(positional) > 1 and positional[1] else "run script"
        return exec_labels().package_scripts.get(sub) or f"run {bin_name} {sub}"
    if bin_name in ("node", "python", "python3", "ruby", "php"):
        return _interpreter_summary(bin_name, words, here_input)
    if bin_name == "openclaw":
        command = first_positional(words, 1)
        return f"run openclaw {command}" if command else "run openclaw"
    arg = first_positional(words, 1)
    if not arg or utf16_len(arg) > 48:
        return f"run {bin_name}"
    return f"run {bin_name} {arg}" if _SIMPLE_ARG_RE.search(arg) else f"run {bin_name}"
