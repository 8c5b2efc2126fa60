"""Short, redacted labels for shell commands (`exec`/`bash`/`shell` tool calls).

`git status && cat log | grep x` becomes `check git status → show log -> search "x"`;
unknown commands fall back to the compacted raw command. Labels are for people only.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final

from clawharness._json import JsonValue
from clawharness._text import BLANK, BLANK_CLASS, trim
from clawharness._utf16 import utf16_len, utf16_slice
from clawharness.redaction import redact_tool_payload_text
from clawharness.tool_display.exec_summaries import summarize_known_exec
from clawharness.tool_display.specs import exec_labels
from clawharness.tools.shell_scan import (
    has_shell_compound_command,
    scan_top_level_chars,
    split_top_level_pipes,
    split_top_level_stages,
    strip_shell_preamble,
)
from clawharness.tools.shell_words import (
    parse_shell_words,
    trim_leading_env,
    unwrap_shell_wrapper,
)

__all__ = ["compact_raw_command", "format_inline_code_span", "resolve_exec_detail"]

#: characters that end an unquoted heredoc terminator word
_TERMINATOR_STOPS: Final = frozenset(BLANK + ";&|<>")
_NEWLINE_BLANKS_RE: Final = re.compile(rf"{BLANK_CLASS}*\n{BLANK_CLASS}*", re.ASCII)
_BLANK_PAIR_RE: Final = re.compile(rf"{BLANK_CLASS}{{2,}}", re.ASCII)
_BLANK_RUN_RE: Final = re.compile(rf"{BLANK_CLASS}+", re.ASCII)


def _summarize_simple(command: str) -> str | None:
    parsed = parse_shell_words(command)
    if parsed.unsupported:
        return None
    return summarize_known_exec(trim_leading_env(parsed.words), parsed.here_input)


def _summarize_pipeline(stage: str) -> str | None:
    pipeline = split_top_level_pipes(stage)
    if len(pipeline) > 1:
        first = _summarize_simple(pipeline[0])
        last = _summarize_simple(pipeline[-1])
        if not first or not last:
            return None
        extra = f" (+{len(pipeline) - 2} steps)" if len(pipeline) > 2 else ""
        return f"{first} -> {last}{extra}"
    return _summarize_simple(stage)


def _heredoc_terminator(line: str, raw_start: int) -> str | None:
    start = raw_start
    while start < len(line) and line[start] in BLANK:
        start += 1
    value = ""
    quote = ""
    index = start
    while index < len(line):
        char = line[index]
        if quote:
            if char == quote:
                quote = ""
            elif quote == '"' and char == "\\" and index + 1 < len(line):
                index += 1
                value += line[index]
            else:
                value += char
            index += 1
            continue
        if char in _TERMINATOR_STOPS:
            break
        if char in ("'", '"'):
            quote = char
        elif char == "\\" and index + 1 < len(line):
            index += 1
            value += line[index]
        else:
            value += char
        index += 1
    return value or None


def _heredoc_terminators(line: str) -> list[tuple[str, bool]]:
    found: list[tuple[str, bool]] = []

    def at(index: int) -> str:
        return line[index] if 0 <= index < len(line) else ""

    def visit(char: str, index: int) -> bool:
        if char != "<" or at(index - 1) == "<" or at(index + 1) != "<" or at(index + 2) == "<":
            return True
        strip_tabs = at(index + 2) == "-"
        parsed = _heredoc_terminator(line, index + (3 if strip_tabs else 2))
        if parsed:
            found.append((parsed, strip_tabs))
        return True

    scan_top_level_chars(line, visit)
    return found


def _without_heredoc_bodies(command: str) -> str | None:
    if "\n" not in command:
        return None
    lines = re.split(r"\r?\n", command)
    kept: list[str] = []
    found_heredoc = False
    index = 0
    while index < len(lines):
        line = lines[index]
        kept.append(line)
        terminators = _heredoc_terminators(line)
        if terminators:
            found_heredoc = True
            for value, strip_tabs in terminators:
                index += 1
                while index < len(lines):
                    candidate = lines[index].lstrip("\t") if strip_tabs else lines[index]
                    if candidate == value:
                        break
                    index += 1
        index += 1
    if not found_heredoc:
        return None
    return "; ".join(trim(line) for line in kept if trim(line))


def _classify_workspace(path: str) -> str | None:
    normalized = re.sub(r"/+\Z", "", path.replace("\\", "/"))
    segments = [segment for segment in normalized.split("/") if segment]
    if not segments:
        return None
    for index, segment in enumerate(segments):
        following = segments[index + 1] if index + 1 < len(segments) else None
        if segment == ".openclaw" and following == "workspace":
            return "agent"
        if segment == ".openclaw" and following == "sandboxes":
            return "sandbox"
        if (
            re.search(r"[-_]workspace\Z", segment, re.IGNORECASE | re.ASCII)
            and segment.lower() != "workspace"
        ):
            return "agent"
        if re.match(r"workspace[-_]", segment, re.IGNORECASE | re.ASCII):
            return "agent"
    if "Projects" in segments or "projects" in segments:
        return "repo"
    if segments[-1].lower() == "workspace":
        return "workspace"
    return None


def _cwd_suffix(cwd: str) -> str | None:
    workspace = _classify_workspace(cwd)
    if workspace == "sandbox":
        return None
    return f"({workspace})" if workspace else f"(in {cwd})"


@dataclass(frozen=True, slots=True)
class _ExecSummary:
    text: str
    chdir_path: str | None
    all_generic: bool | None


def _summarize_exec(command: str) -> _ExecSummary | None:
    stripped = strip_shell_preamble(command)
    if not stripped.command:
        return _ExecSummary("", stripped.chdir_path, None) if stripped.chdir_path else None
    without = _without_heredoc_bodies(stripped.command)
    stages = split_top_level_stages(without if without is not None else stripped.command)
    if not stages:
        return None
    summaries = [_summarize_pipeline(stage) for stage in stages]
    if any(summary is None for summary in summaries):
        return None
    texts = [summary for summary in summaries if summary is not None]
    text = texts[0] if len(texts) == 1 else " → ".join(texts)
    if not text:
        return None
    return _ExecSummary(text, stripped.chdir_path, all(_is_generic(s) for s in texts))




def _is_generic(summary: str) -> bool:
    if summary == "run command":
        return True
    if summary.startswith("run "):
        return not summary.startswith(exec_labels().known_prefixes)
    return False


def compact_raw_command(raw: str, max_length: int = 120) -> str:
    """One redacted line, middle-elided to `max_length` UTF-16 units."""
    one_line = _NEWLINE_BLANKS_RE.sub(" ", raw)
    one_line = trim(_BLANK_PAIR_RE.sub(" ", one_line))
    one_line = redact_tool_payload_text(one_line)
    if utf16_len(one_line) <= max_length:
        return one_line
    half = math.floor((max_length - 1) / 2)
    head = utf16_slice(one_line, 0, half)
    tail = utf16_slice(one_line, -(max_length - 1 - half))
    return f"{head}…{tail}"


def format_inline_code_span(value: str) -> str:
    """Wrap text in a Markdown code span longer than any backtick run inside it."""
    longest = max((len(run) for run in re.findall(r"`+", value)), default=0)
    delimiter = "`" * (longest + 1)
    padding = " " if value.startswith("`") or value.endswith("`") or "\n" in value else ""
    return f"{delimiter}{padding}{value}{padding}{delimiter}"


_ANSI_RE = re.compile(  # ASCII digits: the ECMAScript `\d`
    r"(?:\x1b\][^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c))"
    r"|[\x1b\x9b][\[\]()#;?]*(?:\d{1,4}(?:[;:]\d{0,4})*)?[\dA-PR-TZcf-nq-uy=><~]",
    re.ASCII,
)


def _sanitize_terminal_text(text: str) -> str:
    if "\x1b" in text or "\x9b" in text or "\x9c" in text:
        text = _ANSI_RE.sub("", text)
    escapes = {"\r": "\\r", "\n": "\\n", "\t": "\\t"}
    return "".join(
        escapes.get(ch, "") if (ord(ch) < 0x20 or 0x7F <= ord(ch) <= 0x9F) else ch for ch in text
    )


def _exec_title(record: Mapping[str, JsonValue]) -> str | None:
    title = record.get("title")
    if not isinstance(title, str):
        return None
    text = trim(_sanitize_terminal_text(_BLANK_RUN_RE.sub(" ", title)))
    return utf16_slice(redact_tool_payload_text(text), 0, 120) or None


def _exec_code(record: Mapping[str, JsonValue]) -> str | None:
    for key in ("code", "input"):
        value = record.get(key)
        if isinstance(value, str) and trim(value):
            return value
    return None


def resolve_exec_detail(
    record: Mapping[str, JsonValue] | None, detail_mode: str | None = None
) -> str | None:
    """Detail for a shell tool call (`record`: its arguments): a summary plus the raw
    command, or the raw command alone. `detail_mode="raw"` skips the title and shows
    inline code; `"explain"` leaves the raw command out after a summary."""
    if record is None:
        return None
    title = None if detail_mode == "raw" else _exec_title(record)
    if title:
        return title
    code = _exec_code(record)
    if code:
        if detail_mode == "raw":
            return compact_raw_command(code)
        return "run TypeScript" if record.get("language") == "typescript" else "run JavaScript"
    command = record.get("command")
    raw = trim(command) if isinstance(command, str) else None
    if not raw:
        return None
    node = record.get("node")
    node_name = (
        trim(node)
        if record.get("host") == "node" and isinstance(node, str) and trim(node)
        else None
    )
    unwrapped = unwrap_shell_wrapper(raw)
    compact = compact_raw_command(unwrapped)
    workdir, cwd_arg = record.get("workdir"), record.get("cwd")
    cwd_raw = workdir if isinstance(workdir, str) else cwd_arg if isinstance(cwd_arg, str) else None
    node_fragment = f", node: {node_name}" if node_name else ""
    if has_shell_compound_command(unwrapped):
        suffix = _cwd_suffix(trim(cwd_raw)) if cwd_raw and trim(cwd_raw) else None
        return f"{f'{compact} {suffix}' if suffix else compact}{node_fragment}"
    result = _summarize_exec(unwrapped) or _summarize_exec(raw)
    summary = (result.text if result else "") or "run command"
    cwd = (trim(cwd_raw) if cwd_raw else "") or (result.chdir_path if result else None) or None
    cwd_suffix = _cwd_suffix(cwd) if cwd else None
    all_generic = result.all_generic if result else None
    if all_generic is not False and _is_generic(summary):
        return f"{f'{compact} {cwd_suffix}' if cwd_suffix else compact}{node_fragment}"
    display = f"{summary} {cwd_suffix}" if cwd_suffix else summary
    if detail_mode != "explain" and compact and compact != display and compact != summary:
        return f"{display}{node_fragment}, {format_inline_code_span(compact)}"
    return f"{display}{node_fragment}"
